// A table wider than its box scrolls sideways: say so above it (and the CSS shades the hidden edge).
(function () {
  function mark() {
    document.querySelectorAll("main table").forEach(function (table) {
      var box = table.closest(".scroll") || table;
      var hint = box.previousElementSibling;
      var has = hint && hint.classList.contains("scroll-hint");
      var wide = box.scrollWidth > box.clientWidth + 1;
      if (wide && !has) {
        hint = document.createElement("p");
        hint.className = "scroll-hint muted";
        hint.textContent = "Scroll sideways for more columns →";
        box.parentNode.insertBefore(hint, box);
      } else if (!wide && has) {
        hint.remove();
      }
    });
  }
  document.addEventListener("DOMContentLoaded", mark);
  window.addEventListener("resize", mark);
})();
