// The Control UI's theme: light or dark as the system prefers, until the
// user picks one with the toggle; the pick is kept in localStorage (it is
// a preference, not a secret: the token stays in sessionStorage). This is
// a classic script loaded in <head> so the saved theme applies before the
// first paint instead of flashing the other one.
(function () {
  'use strict';
  var KEY = 'openclaw.control.theme';
  var root = document.documentElement;
  var dark = window.matchMedia ? window.matchMedia('(prefers-color-scheme: dark)') : null;

  function saved() {
    try {
      var t = localStorage.getItem(KEY);
      return t === 'light' || t === 'dark' ? t : '';
    } catch (e) {
      return ''; // storage refused (private mode): the system's choice
    }
  }

  function effective() {
    return root.dataset.theme || (dark && dark.matches ? 'dark' : 'light');
  }

  function label() {
    var b = document.getElementById('theme');
    if (!b) return;
    var next = effective() === 'dark' ? 'light' : 'dark';
    b.setAttribute('aria-label', 'Switch to the ' + next + ' theme');
    b.title = 'Switch to the ' + next + ' theme';
    b.dataset.current = effective();
  }

  var t = saved();
  if (t) root.dataset.theme = t;

  document.addEventListener('DOMContentLoaded', function () {
    label();
    if (dark && dark.addEventListener) dark.addEventListener('change', label);
    var b = document.getElementById('theme');
    if (!b) return;
    b.addEventListener('click', function () {
      var next = effective() === 'dark' ? 'light' : 'dark';
      root.dataset.theme = next;
      try {
        localStorage.setItem(KEY, next);
      } catch (e) {
        // kept for this page only
      }
      label();
    });
  });
})();
