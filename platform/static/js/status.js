// Poll a submission's status JSON until it is done (updating the queue place and ETA), then reload to show the scores.
(function () {
  const el = document.getElementById("status");
  if (!el || el.dataset.done === "true") return;
  const url = el.dataset.url;
  async function poll() {
    try {
      const response = await fetch(url, { headers: { Accept: "application/json" } });
      if (response.ok) {
        const data = await response.json();
        el.textContent = data.status_label;
        el.className = "badge status-" + data.status;
        const place = document.getElementById("queue-place");
        const q = data.queue || {};
        if (place) {
          place.textContent = q.position
            ? "Place in the scoring queue: " + q.position + " (" + q.ahead + " ahead)" +
              (q.eta_seconds !== null && q.eta_seconds !== undefined
                ? "; estimated " + Math.round(q.eta_seconds) + " s until scored" : "") + ". "
            : "";
        }
        if (data.done) { window.location.reload(); return; }
      }
    } catch (e) { /* the network hiccuped: try again */ }
    setTimeout(poll, 1000);
  }
  setTimeout(poll, 500);
})();
