// askuser web: live updates, times as a person reads them, the countdown,
// notifications and shortcuts. Everything here shows what the server sends;
// answering is the forms' job, and every page works the same with this script
// off (the server's own words for times are then what shows).
(function () {
  'use strict';
  var main = document.querySelector('main');
  var live = document.getElementById('live');
  if (!main || !live) return;
  // The shortcuts' hints show only when the shortcuts work.
  document.documentElement.classList.add('js');

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

  // Ages in one unit, as the server words them.
  function age(secs) {
    if (secs < 60) return secs + ' s';
    if (secs < 3600) return Math.floor(secs / 60) + ' min';
    if (secs < 86400) return Math.floor(secs / 3600) + ' h';
    return Math.floor(secs / 86400) + ' d';
  }

  // The countdown and the relative times: from the time left and the ages the
  // server gave when the page was made, so the browser's clock does not
  // matter; a time's title is its exact moment in the person's time zone.
  function arm() {
    var now = Date.now();
    document.querySelectorAll('[data-left-ms]').forEach(function (el) {
      el.dataset.deadline = String(now + Number(el.dataset.leftMs));
    });
    document.querySelectorAll('time[data-age-ms]').forEach(function (el) {
      el.dataset.born = String(now - Number(el.dataset.ageMs));
    });
    document.querySelectorAll('time[datetime]').forEach(function (el) {
      var at = new Date(el.getAttribute('datetime'));
      if (!isNaN(at.getTime())) el.title = at.toLocaleString();
    });
    // A clock time (when the assistant got the answers) in the person's own
    // time zone, 24-hour, with its date when it is not today's.
    document.querySelectorAll('time.clock[datetime]').forEach(function (el) {
      var at = new Date(el.getAttribute('datetime'));
      if (isNaN(at.getTime())) return;
      var two = function (n) { return (n < 10 ? '0' : '') + n; };
      var day = at.getFullYear() + '-' + two(at.getMonth() + 1) + '-' + two(at.getDate());
      var today = new Date(now);
      var sameDay = today.getFullYear() === at.getFullYear() &&
        today.getMonth() === at.getMonth() && today.getDate() === at.getDate();
      var hm = two(at.getHours()) + ':' + two(at.getMinutes());
      el.textContent = sameDay ? hm : day + ' ' + hm;
    });
  }

  function ages() {
    var now = Date.now();
    document.querySelectorAll('time[data-born]').forEach(function (el) {
      var secs = Math.max(0, Math.floor((now - Number(el.dataset.born)) / 1000));
      var text = el.classList.contains('ago') ? age(secs) + ' ago' : age(secs);
      if (el.textContent !== text) el.textContent = text;
    });
  }

  // Whether the person typed something on this page (a reload would lose it).
  function typed() {
    return Array.prototype.some.call(
      document.querySelectorAll('textarea, input[type="text"]'),
      function (el) { return el.value !== el.defaultValue; });
  }

  var reloading = false;
  function tick() {
    var now = Date.now();
    var up = false;
    document.querySelectorAll('[data-deadline]').forEach(function (el) {
      // Rounded up: "time is up" only once the deadline has passed (rounding
      // to the nearest said it half a second early, and an answer sent then
      // was still taken).
      var left = Math.max(0, Math.ceil((Number(el.dataset.deadline) - now) / 1000));
      el.textContent = left > 0 ? words(left) + ' left' : 'time is up';
      el.classList.toggle('soon', left <= 20);
      if (left === 0) up = true;
    });
    // At the deadline the server records the timeout when the page is asked
    // for again, and says what the agent got: ask for it (a moment after the
    // deadline). When the person typed something a reload would lose, the page
    // stays and is told that the time ran out (asked again until the server,
    // whose clock may lag, has recorded it).
    if (up && !reloading && main) {
      reloading = true;
      if (!typed()) {
        setTimeout(function () { location.reload(); }, 1500);
      } else if (main.dataset.page === 'inquiry') {
        var tries = 0;
        var ask = setInterval(function () {
          tries += 1;
          if (document.getElementById('changed') || tries > 10) clearInterval(ask);
          else refresh();
        }, 1500);
      }
    }
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

  // The live page: the inbox is replaced; an inquiry's page is only told,
  // but for whether its agent still waits.
  var busy = false;
  var again = false;
  function refresh() {
    if (busy) {
      again = true;
      return;
    }
    busy = true;
    fetch(location.pathname + shownQuery(), { credentials: 'same-origin', cache: 'no-store' })
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
          ages();
          setupNotify();
          if (after > before) {
            var text = after === 1 ? 'A question is waiting.' : after + ' questions are waiting.';
            say(text);
            notify(text);
          }
        } else if (main.dataset.page === 'inquiry') {
          presence(page);
          if (next.dataset.state !== main.dataset.state) changedElsewhere(page);
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

  // Whether the agent still waits: the line is taken from the page fetched
  // again (the form and what the person typed stay as they are).
  function presence(page) {
    var was = document.getElementById('presence');
    var now = page.getElementById('presence');
    if (!was || !now || was.outerHTML === now.outerHTML) return;
    was.replaceWith(document.importNode(now, true));
    if (!now.hidden && now.textContent) say(now.textContent);
  }

  // What the page fetched again is asked for: the inbox's own query (its
  // page); for an inquiry's page, what this page shows (its step and
  // question), so that the server says in words what moved it on.
  function shownQuery() {
    if (main.dataset.page !== 'inquiry') return location.search;
    var step = document.querySelector('input[name="at_step"]');
    if (!step) return '';
    var query = '?step=' + encodeURIComponent(step.value);
    var question = document.querySelector('input[name="at_question"]');
    if (question) query += '&question=' + encodeURIComponent(question.value);
    return query;
  }

  // What moved the inquiry on, in the server's words (the engine's account of
  // what another surface did), with the way to the page as it stands now.
  function changedElsewhere(page) {
    var moved = page.getElementById('moved');
    if (!moved || !moved.textContent) return;
    var was = document.getElementById('changed');
    if (was && was.dataset.text === moved.textContent) return;
    var note = document.createElement('p');
    note.id = 'changed';
    note.className = 'error';
    note.dataset.text = moved.textContent;
    note.append(moved.textContent + ' ');
    var link = document.createElement('a');
    link.href = location.pathname;
    link.textContent = 'Show it now';
    note.append(link);
    if (was) was.replaceWith(note);
    else main.prepend(note);
    say(moved.textContent);
  }

  // Shortcuts: 1-9 open the inbox's questions, or pick a question's options;
  // Ctrl+Enter presses the page's main button (Answer, Send).
  document.addEventListener('keydown', function (event) {
    var typing = /^(TEXTAREA|SELECT)$/.test(event.target.tagName) ||
      (event.target.tagName === 'INPUT' && /^(text|number|search)$/.test(event.target.type));
    var plain = !event.ctrlKey && !event.metaKey && !event.altKey;
    if (!typing && plain && /^[1-9]$/.test(event.key)) {
      var n = Number(event.key) - 1;
      if (main.dataset.page === 'inbox') {
        var link = main.querySelectorAll('a.question')[n];
        if (link) link.click();
      } else {
        var option = document.getElementById('c' + n);
        if (option) {
          option.click();
          option.focus();
        }
      }
    }
    if ((event.ctrlKey || event.metaKey) && event.key === 'Enter') {
      var button = main.querySelector('button.primary');
      if (button && button.form) {
        // Out of the key's event: a submission made while Ctrl is down opens
        // in a new tab.
        event.preventDefault();
        setTimeout(function () {
          button.form.requestSubmit(button);
        }, 0);
      }
    }
  });

  arm();
  tick();
  setInterval(tick, 1000);
  setInterval(ages, 5000);
  setupNotify();
  if ('EventSource' in window && main.dataset.page) {
    new EventSource('/events').addEventListener('change', refresh);
  }
})();
