// Keyboard answers on the annotation page: 1-5 pick an option, n picks "none of these / more than one fits".
(function () {
  let sent = false;
  document.addEventListener("keydown", function (event) {
    if (sent || event.ctrlKey || event.metaKey || event.altKey) return;
    const button = document.querySelector('#answer-form button[data-key="' + event.key.toLowerCase() + '"]');
    if (!button) return;
    event.preventDefault();
    sent = true;
    button.click();
  });
})();
