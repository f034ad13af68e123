// Render the math that pymdownx.arithmatex wrapped (\( \) inline, \[ \] display) with the bundled KaTeX.
(function () {
  function render() {
    document.querySelectorAll(".arithmatex").forEach(function (element) {
      renderMathInElement(element, {
        delimiters: [
          { left: "\\(", right: "\\)", display: false },
          { left: "\\[", right: "\\]", display: true },
        ],
        throwOnError: false,
      });
    });
  }
  if (typeof document$ !== "undefined") {
    document$.subscribe(render);  // Material's page-load stream (also fires on the first load)
  } else {
    document.addEventListener("DOMContentLoaded", render);
  }
})();
