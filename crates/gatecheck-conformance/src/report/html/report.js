// The report's only script: copy buttons, the checks table's filter, details opened to print.
// It reads and writes text only (textContent), never markup.
document.querySelectorAll('button.copy').forEach(function (b) {
  b.addEventListener('click', function () {
    var pre = document.getElementById(b.getAttribute('data-for'));
    if (!pre) return;
    var done = function () { b.textContent = 'Copied'; setTimeout(function () { b.textContent = 'Copy'; }, 1200); };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(pre.textContent).then(done, function () {});
    } else {
      var r = document.createRange(); r.selectNodeContents(pre);
      var s = getSelection(); s.removeAllRanges(); s.addRange(r);
    }
  });
});
document.querySelectorAll('input.filter').forEach(function (f) {
  var rows = document.querySelectorAll('#' + f.getAttribute('data-table') + ' tbody tr');
  f.addEventListener('input', function () {
    var q = f.value.toLowerCase();
    rows.forEach(function (r) { r.classList.toggle('hidden', q !== '' && r.textContent.toLowerCase().indexOf(q) < 0); });
  });
});
addEventListener('beforeprint', function () {
  document.querySelectorAll('details').forEach(function (d) { d.open = true; });
});
