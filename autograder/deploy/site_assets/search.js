// Search over the pages: mystmd's index of every section (search-index.js, written by
// autograder/deploy/site.py), matched word by word as the reader types. Works from file:// too.
(function () {
  const box = document.getElementById("search");
  const results = document.getElementById("results");
  const records = window.NANO_SEARCH || [];

  function title(record) {
    const h = record.hierarchy || {};
    return [h.lvl1, h.lvl2, h.lvl3].filter(Boolean).join(" › ");
  }

  function show(query) {
    results.replaceChildren();
    const words = query.toLowerCase().split(/\s+/).filter(Boolean);
    if (!words.length) return;
    const seen = new Set();
    for (const record of records) {
      const text = (title(record) + " " + (record.content || "")).toLowerCase();
      if (!words.every((w) => text.includes(w)) || seen.has(record.url)) continue;
      seen.add(record.url);
      const item = document.createElement("li");
      const link = document.createElement("a");
      link.href = record.url;
      link.textContent = title(record);
      item.append(link);
      results.append(item);
      if (seen.size >= 12) break;
    }
    if (!seen.size) {
      const item = document.createElement("li");
      item.textContent = "no section mentions that";
      results.append(item);
    }
  }

  box.addEventListener("input", () => show(box.value));
})();
