// Trawl dashboard: the little the server-rendered pages cannot do alone. No framework, no build.
'use strict';

// Copy buttons: <button data-copy="element-id">.
document.addEventListener('click', (event) => {
  const button = event.target instanceof Element ? event.target.closest('[data-copy]') : null;
  if (!button) return;
  const source = document.getElementById(button.getAttribute('data-copy'));
  if (!source) return;
  const text = source.textContent || '';
  const done = () => {
    button.textContent = 'Copied';
  };
  if (navigator.clipboard && window.isSecureContext) {
    navigator.clipboard.writeText(text).then(done, () => selectText(source));
  } else {
    selectText(source);
    // execCommand is the only copy available on plain-HTTP origins.
    if (document.execCommand('copy')) done();
  }
});

function selectText(element) {
  const range = document.createRange();
  range.selectNodeContents(element);
  const selection = window.getSelection();
  selection.removeAllRanges();
  selection.addRange(range);
}

// Forms that ask first: <form data-confirm="...">.
document.addEventListener('submit', (event) => {
  const form = event.target;
  if (form instanceof HTMLFormElement && form.dataset.confirm && !window.confirm(form.dataset.confirm)) event.preventDefault();
});

// A running job's page follows it: <div data-live="status.json URL">. When the job ends the page
// reloads once, so its errors and robots-blocked URLs are rendered by the server.
const live = document.querySelector('[data-live]');
if (live) {
  const source = live.getAttribute('data-live');
  const bar = live.querySelector('progress');
  const set = (field, value) => {
    for (const el of document.querySelectorAll(`[data-field="${field}"]`)) el.textContent = Number(value).toLocaleString('en-US');
  };
  const poll = async () => {
    try {
      const response = await fetch(source, { headers: { accept: 'application/json' }, cache: 'no-store' });
      if (!response.ok) return void setTimeout(poll, 5000);
      const status = await response.json();
      set('completed', status.completed);
      set('total', status.total);
      set('creditsUsed', status.creditsUsed);
      if (bar) {
        bar.max = Math.max(1, status.total);
        bar.value = status.completed;
      }
      if (status.status !== 'scraping') return void window.location.reload();
      setTimeout(poll, 1000);
    } catch {
      setTimeout(poll, 5000);
    }
  };
  setTimeout(poll, 1000);
}
