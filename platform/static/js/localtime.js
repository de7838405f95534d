// Add the visitor's local time after every UTC <time datetime=...> the server rendered.
(function () {
  document.querySelectorAll("time.utc[datetime]").forEach(function (el) {
    const at = new Date(el.getAttribute("datetime"));
    if (isNaN(at)) return;
    const local = document.createElement("span");
    local.className = "muted localtime";
    local.textContent = " (" + at.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" }) + " your time)";
    el.after(local);
  });
})();
