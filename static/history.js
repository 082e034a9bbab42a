// History page: the slider shows its value and goes to the seq when released.
(function () {
  "use strict";
  var slider = document.getElementById("at");
  var output = document.getElementById("at-value");
  if (!slider) return;
  slider.addEventListener("input", function () { output.textContent = slider.value; });
  slider.addEventListener("change", function () { slider.form.submit(); });
  document.addEventListener("keydown", function (event) {
    if (event.target.tagName === "INPUT") return;
    var link = event.key === "ArrowLeft" ? "prev" : event.key === "ArrowRight" ? "next" : null;
    if (link) document.getElementById(link).click();
  });
})();
