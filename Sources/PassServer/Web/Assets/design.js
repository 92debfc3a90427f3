// The design page: the preview of the sample ticket follows the form as it changes (colours,
// logo texts, chosen and removed images, the poster switch) and only the event type's own
// fields are shown. No libraries. The Content-Security-Policy allows no inline style, so the
// colours reach the preview as custom properties set through the CSSOM; chosen files are read
// as data: URLs (the policy allows data: images, not blob: ones).
(function () {
  "use strict";
  var form = document.getElementById("design-form");
  var preview = document.getElementById("design-preview");
  // The colours are set where both the preview and the form's thumbnails see them.
  var page = document.querySelector(".design-grid") || preview;
  if (!form) return;

  function field(name) {
    return form.elements.namedItem(name);
  }

  // #rrggbb or rgb(r, g, b) with each part 0-255, as the server takes them; null otherwise.
  function colour(text) {
    var value = (text || "").trim();
    if (/^#[0-9a-fA-F]{6}$/.test(value)) return value.toLowerCase();
    var match = /^rgb\(\s*(\d{1,3})\s*,\s*(\d{1,3})\s*,\s*(\d{1,3})\s*\)$/.exec(value);
    if (!match) return null;
    var parts = [match[1], match[2], match[3]].map(Number);
    if (parts.some(function (part) { return part > 255; })) return null;
    return "#" + parts.map(function (part) { return (part < 16 ? "0" : "") + part.toString(16); }).join("");
  }

  var colours = [
    ["backgroundColor", "background", "templateBackground"],
    ["foregroundColor", "foreground", "templateForeground"],
    ["labelColor", "label", "templateLabel"],
  ];

  function applyColours() {
    if (!preview) return;
    colours.forEach(function (entry) {
      var input = field(entry[0]);
      var typed = input ? colour(input.value) : null;
      var value = typed || colour(preview.dataset[entry[2]]) || preview.dataset[entry[2]];
      if (value) page.style.setProperty("--pass-" + entry[1], value);
      var picker = document.querySelector('input[type=color][data-color-for="' + (input ? input.id : "") + '"]');
      if (picker && value && colour(value)) picker.value = colour(value);
    });
  }

  function applyTexts() {
    if (!preview) return;
    var logo = document.getElementById("preview-logo-text");
    var logoText = field("logoText");
    if (logo && logoText) logo.textContent = logoText.value.trim() || preview.dataset.templateLogoText || "";
    var eventLogo = document.getElementById("preview-event-logo-text");
    var eventLogoText = field("details.eventLogoText");
    if (eventLogo && eventLogoText) eventLogo.textContent = eventLogoText.value.trim();
  }

  // Every preview picture of `kind` shows `source` (none: hidden).
  function showImage(kind, source) {
    document.querySelectorAll('img[data-image="' + kind + '"]').forEach(function (image) {
      if (source) {
        image.src = source;
        image.hidden = false;
      } else {
        image.removeAttribute("src");
        image.hidden = true;
      }
    });
    var front = document.getElementById("preview-front");
    var strip = front && front.querySelector('img[data-image="strip"]');
    if (front) front.classList.toggle("has-strip", !!(strip && !strip.hidden));
  }

  // What `kind` shows without a chosen file: the stored image, or the template's once removed.
  function restingSource(kind) {
    var image = document.querySelector('img[data-image="' + kind + '"]');
    if (!image) return "";
    var remove = field("remove." + kind);
    if (remove && remove.checked) return image.dataset.templateSrc || "";
    return image.dataset.currentSrc || "";
  }

  function applyFile(input) {
    var kind = input.dataset.preview;
    var file = input.files && input.files[0];
    if (!file) {
      showImage(kind, restingSource(kind));
      return;
    }
    var reader = new FileReader();
    reader.onload = function () {
      // The input may have changed again while the file was read.
      if (input.files && input.files[0] === file) showImage(kind, String(reader.result));
    };
    reader.readAsDataURL(file);
  }

  function applyPoster() {
    var poster = document.getElementById("preview-poster");
    var caption = document.getElementById("preview-poster-caption");
    var use = field("details.usePoster");
    if (!poster || !use) return;
    poster.hidden = !use.checked;
    if (caption) caption.hidden = !use.checked;
    var front = document.getElementById("preview-front-caption");
    if (front) front.textContent = use.checked ? "Classic ticket (other phones)" : "Front";
  }

  function applyKind() {
    var type = field("details.kind.type");
    var chosen = type ? type.value : "generic";
    document.querySelectorAll("[data-for-kind]").forEach(function (section) {
      section.hidden = section.dataset.forKind !== chosen;
    });
  }

  form.addEventListener("input", function (event) {
    var target = event.target;
    if (target.matches("input[type=color][data-color-for]")) {
      var text = document.getElementById(target.dataset.colorFor);
      if (text) text.value = target.value;
    }
    applyColours();
    applyTexts();
  });
  form.addEventListener("change", function (event) {
    var target = event.target;
    if (target.matches("input[type=file][data-preview]")) applyFile(target);
    if (target.name && target.name.indexOf("remove.") === 0) {
      var kind = target.name.slice("remove.".length);
      var input = field("images." + kind);
      if (!(input && input.files && input.files[0])) showImage(kind, restingSource(kind));
    }
    if (target.name === "details.usePoster") applyPoster();
    if (target.name === "details.kind.type") applyKind();
  });

  applyColours();
  applyTexts();
  applyPoster();
  applyKind();
  form.querySelectorAll("input[type=file][data-preview]").forEach(function (input) {
    // A file the browser kept across a reload is shown too.
    if (input.files && input.files[0]) applyFile(input);
  });
})();
