// askuser web: live updates, the countdown, notifications and shortcuts.
// Everything here shows what the server sends; answering is the forms' job, and
// every page works the same with this script off.
(function () {
  'use strict';
  var main = document.querySelector('main');
  var live = document.getElementById('live');
  if (!main || !live) return;

  function say(text) {
    live.textContent = text;
  }

  function waitingIn(title) {
    var found = /^\((\d+)\)/.exec(title);
    return found ? Number(found[1]) : 0;
  }

  function words(secs) {
    if (secs < 60) return secs + ' s';
    if (secs < 3600) return Math.floor(secs / 60) + ' min';
    var rest = Math.floor((secs % 3600) / 60);
    return Math.floor(secs / 3600) + ' h' + (rest ? ' ' + rest + ' min' : '');
  }

  // The countdown: from the time left when the page was made.
  function arm() {
    var now = Date.now();
    document.querySelectorAll('[data-left-ms]').forEach(function (el) {
      el.dataset.deadline = String(now + Number(el.dataset.leftMs));
    });
  }

  function tick() {
    var now = Date.now();
    document.querySelectorAll('[data-deadline]').forEach(function (el) {
      var left = Math.max(0, Math.round((Number(el.dataset.deadline) - now) / 1000));
      el.textContent = left > 0 ? words(left) + ' left' : 'time is up';
      el.classList.toggle('soon', left <= 20);
    });
  }

  // Notifications, when the person allows them.
  var canNotify = 'Notification' in window;
  function setupNotify() {
    var button = document.getElementById('notify');
    if (!button || !canNotify || Notification.permission !== 'default') return;
    button.hidden = false;
    button.addEventListener('click', function () {
      Notification.requestPermission().then(function () {
        button.hidden = true;
      });
    });
  }

  function notify(text) {
    if (canNotify && Notification.permission === 'granted' && document.hidden) {
      new Notification('askuser', { body: text });
    }
  }

  // The live page: the inbox is replaced; an inquiry's page is only told.
  var busy = false;
  var again = false;
  function refresh() {
    if (busy) {
      again = true;
      return;
    }
    busy = true;
    fetch(location.pathname, { credentials: 'same-origin', cache: 'no-store' })
      .then(function (response) {
        return response.text();
      })
      .then(function (html) {
        var page = new DOMParser().parseFromString(html, 'text/html');
        var next = page.querySelector('main');
        if (!next) return;
        if (main.dataset.page === 'inbox') {
          var before = waitingIn(document.title);
          var after = waitingIn(page.title);
          main.replaceChildren.apply(main, Array.from(next.childNodes));
          document.title = page.title;
          arm();
          tick();
          setupNotify();
          if (after > before) {
            var text = after === 1 ? 'A question is waiting.' : after + ' questions are waiting.';
            say(text);
            notify(text);
          }
        } else if (main.dataset.page === 'inquiry' && next.dataset.state !== main.dataset.state) {
          changedElsewhere();
        }
      })
      .catch(function () {})
      .then(function () {
        busy = false;
        if (again) {
          again = false;
          refresh();
        }
      });
  }

  function changedElsewhere() {
    if (document.getElementById('changed')) return;
    var note = document.createElement('p');
    note.id = 'changed';
    note.className = 'error';
    note.append('This question was answered or changed elsewhere. ');
    var link = document.createElement('a');
    link.href = location.pathname;
    link.textContent = 'Show it now';
    note.append(link);
    main.prepend(note);
    say('This question was answered or changed elsewhere.');
  }

  // Shortcuts: 1-9 open the inbox's questions; Ctrl+Enter answers.
  document.addEventListener('keydown', function (event) {
    var typing = /^(INPUT|TEXTAREA|SELECT)$/.test(event.target.tagName);
    if (main.dataset.page === 'inbox' && !typing && /^[1-9]$/.test(event.key)) {
      var links = main.querySelectorAll('li > a');
      var link = links[Number(event.key) - 1];
      if (link) link.click();
    }
    if ((event.ctrlKey || event.metaKey) && event.key === 'Enter') {
      var button = main.querySelector('button[value="answer"], button[value="submit"]');
      if (button && button.form) button.form.requestSubmit(button);
    }
  });

  arm();
  tick();
  setInterval(tick, 1000);
  setupNotify();
  if ('EventSource' in window && main.dataset.page) {
    new EventSource('/events').addEventListener('change', refresh);
  }
})();
