(function () {
  var stage = document.getElementById("stage");
  var video = document.getElementById("film");
  var play = document.getElementById("play");
  var bar = document.getElementById("bar");
  var seek = document.getElementById("seek");
  var clock = document.getElementById("clock");
  var toggle = document.getElementById("toggle");
  var mute = document.getElementById("mute");
  var portrait = window.matchMedia("(orientation: portrait)");
  var sources = {landscape: stage.dataset.landscape, portrait: stage.dataset.portrait};
  var posters = {landscape: stage.dataset.landscapePoster, portrait: stage.dataset.portraitPoster};
  function choose() {
    var want = portrait.matches ? "portrait" : "landscape";
    if (video.getAttribute("poster") !== posters[want]) { video.poster = posters[want]; }
    if (stage.dataset.aspect === want) { return; }
    var at = video.currentTime, playing = !video.paused && !video.ended;
    stage.dataset.aspect = want;
    video.src = sources[want];
    if (at > 0 || playing) {
      video.addEventListener("loadedmetadata", function () {
        video.currentTime = Math.min(at, video.duration || at);
        if (playing) { video.play().catch(function () { play.hidden = false; }); }
      }, {once: true});
    }
  }
  function start() { video.play().catch(function () { play.hidden = false; }); }
  function mark(button, on, labels) {
    button.setAttribute("aria-label", labels[on ? 1 : 0]);
    button.children[0].hidden = on;
    button.children[1].hidden = !on;
  }
  function time(s) {
    s = Math.floor(s || 0);
    return Math.floor(s / 60) + ":" + String(s % 60).padStart(2, "0");
  }
  choose();
  portrait.addEventListener("change", choose);
  play.hidden = false;
  video.controls = false;
  play.addEventListener("click", function () { video.muted = false; play.hidden = true; start(); });
  video.addEventListener("play", function () { play.hidden = true; bar.hidden = false; });
  video.addEventListener("ended", function () { play.hidden = false; });
  video.addEventListener("play", function () { mark(toggle, true, ["Play", "Pause"]); });
  video.addEventListener("pause", function () { mark(toggle, false, ["Play", "Pause"]); });
  video.addEventListener("volumechange", function () {
    mark(mute, video.muted, ["Mute", "Unmute"]);
  });
  video.addEventListener("timeupdate", function () {
    if (video.duration) { seek.value = String(Math.round(1000 * video.currentTime
                                                          / video.duration)); }
    clock.textContent = time(video.currentTime) + " / " + time(video.duration);
  });
  seek.addEventListener("input", function () {
    if (video.duration) { video.currentTime = video.duration * Number(seek.value) / 1000; }
  });
  toggle.addEventListener("click", function () {
    if (video.paused) { start(); } else { video.pause(); }
  });
  mute.addEventListener("click", function () { video.muted = !video.muted; });
  document.getElementById("full").addEventListener("click", function () {
    if (document.fullscreenElement) { document.exitFullscreen(); }
    else if (stage.requestFullscreen) { stage.requestFullscreen(); }
    else if (video.webkitEnterFullscreen) { video.webkitEnterFullscreen(); }
  });
})();
