/* Autograd Lab: nbgrader's Validate dialog, made readable (a prebuilt JupyterLab extension; no build
 * step: this file is the module-federation container JupyterLab loads, written by hand).
 *
 * nbgrader 0.9.6 lists, for each failed cell, "The following cell failed:", the test's whole source,
 * then the error, in <pre> blocks that do not wrap: the error, the part that helps, comes last and
 * long lines run off the dialog's right edge. This plugin puts the error first, folds the test's
 * source into a <details> below it, and wraps long lines. Installed by `make install` (a link to
 * this folder in .venv/share/jupyter/labextensions/@autograd-lab/validate-dialog).
 */
(function () {
  "use strict";
  var NAME = "@autograd-lab/validate-dialog";
  var CSS = [
    "#validation-message pre { white-space: pre-wrap; overflow-wrap: anywhere; }",
    "#validation-message .autograd-lab-error pre { border-left: 3px solid var(--jp-error-color1, #d32f2f);",
    "  padding-left: 0.6em; }",
    "#validation-message details.autograd-lab-test { margin: 0.4em 0 1.2em; }",
    "#validation-message details.autograd-lab-test > summary { cursor: pointer;",
    "  color: var(--jp-ui-font-color2, #616161); }",
  ].join("\n");

  /* nbgrader's failed-cell list: groups of three children [label, source, error]. */
  function rearrange(message) {
    if (!message.classList.contains("validation-failed") || message.dataset.autogradLab) {
      return;
    }
    message.dataset.autogradLab = "done";
    var kids = Array.prototype.slice.call(message.children);
    for (var i = 0; i + 2 < kids.length; i += 3) {
      var label = kids[i], source = kids[i + 1], error = kids[i + 2];
      var p = label.querySelector("p");
      if (p) {
        p.textContent = "A test failed with this error:";
      }
      error.classList.add("autograd-lab-error");
      var details = document.createElement("details");
      details.className = "autograd-lab-test";
      var summary = document.createElement("summary");
      summary.textContent = "The test cell";
      details.appendChild(summary);
      details.appendChild(source);
      label.after(error);
      error.after(details);
    }
  }

  function scan(root) {
    if (root.nodeType !== 1) {
      return;
    }
    if (root.id === "validation-message") {
      rearrange(root);
    }
    root.querySelectorAll("#validation-message").forEach(rearrange);
  }

  var plugin = {
    id: NAME + ":plugin",
    description: "Validate dialog: the error first, wrapped; the test's source folded.",
    autoStart: true,
    activate: function () {
      var style = document.createElement("style");
      style.id = "autograd-lab-validate-dialog";
      style.textContent = CSS;
      document.head.appendChild(style);
      // JupyterLab attaches dialogs to <body>, their content already built.
      new MutationObserver(function (records) {
        records.forEach(function (r) {
          r.addedNodes.forEach(scan);
        });
      }).observe(document.body, { childList: true });
    },
  };

  window._JUPYTERLAB = window._JUPYTERLAB || {};
  window._JUPYTERLAB[NAME] = {
    init: function () {
      return Promise.resolve();
    },
    get: function (module) {
      if (module !== "./extension") {
        return Promise.reject(new Error(NAME + " has no module " + module));
      }
      return Promise.resolve(function () {
        return { __esModule: true, default: plugin };
      });
    },
  };
})();
