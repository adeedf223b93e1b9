// Applies the stored theme before the first paint (index.html loads this in <head>, before the app's script).
// The preference is the engine's (Settings); src/ui/theme.ts mirrors it to localStorage under this key, so a
// light-theme user sees no dark frame while the engine starts. Must stay tiny and synchronous.
(function () {
  try {
    var t = localStorage.getItem('parley.theme');
    if (t === 'system') t = matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
    if (t === 'dark' || t === 'light') document.documentElement.setAttribute('data-theme', t);
  } catch {
    // Storage blocked: the default (dark) stays until the engine's preference arrives.
  }
})();
