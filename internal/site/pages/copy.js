(function () {
  var root = document.querySelector("[data-share-url]");
  if (!root) return;
  var clean = root.getAttribute("data-share-url");
  if (location.search.indexOf("t=") !== -1 && history.replaceState) {
    history.replaceState(null, "", clean);
  }
  var button = document.getElementById("copy-link");
  var field = document.getElementById("share-url");
  var note = document.getElementById("copy-note");
  if (!button || !field) return;
  button.hidden = false;
  button.addEventListener("click", function () {
    var done = function () {
      note.textContent = "Link copied";
      button.setAttribute("data-copied", "true");
      if (navigator.sendBeacon) navigator.sendBeacon(root.getAttribute("data-copy-beacon"));
      setTimeout(function () { note.textContent = ""; button.removeAttribute("data-copied"); }, 2500);
    };
    if (navigator.clipboard && navigator.clipboard.writeText) {
      navigator.clipboard.writeText(clean).then(done, function () { field.select(); });
    } else {
      field.select();
      if (document.execCommand && document.execCommand("copy")) done();
    }
  });
})();
