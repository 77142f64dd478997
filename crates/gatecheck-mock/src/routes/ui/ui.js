// The mock's live dashboard: polls the control API's JSON routes once a second and draws
// them. Everything a request or a key holds is written as text (textContent), never as markup.
'use strict';

const POLL_MS = 1000;
const KEY_STATUS = { 1: 'enabled', 2: 'disabled', 3: 'expired', 4: 'exhausted' };
const openBodies = new Set();
const last = {};
let paused = false;
let busy = false;

const $ = (id) => document.getElementById(id);

// An element with attributes and children (strings become text nodes).
function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null) continue;
    if (k === 'class') e.className = v;
    else if (k === 'text') e.textContent = String(v);
    else e.setAttribute(k, String(v));
  }
  for (const c of children) {
    if (c === undefined || c === null) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

async function call(method, path, body) {
  const init = { method, cache: 'no-store', headers: {} };
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  const r = await fetch('/__mock/' + path, init);
  if (!r.ok) throw new Error(method + ' /__mock/' + path + ': HTTP ' + r.status);
  return r.json();
}

// Seconds of the mock's clock as UTC text.
function when(secs) {
  if (secs === undefined || secs === null) return '';
  return new Date(secs * 1000).toISOString().replace('T', ' ').replace('.000Z', ' UTC');
}

function ago(now, secs) {
  const d = now - secs;
  if (d < 60) return d + ' s ago';
  if (d < 3600) return Math.floor(d / 60) + ' min ' + (d % 60) + ' s ago';
  return Math.floor(d / 3600) + ' h ' + Math.floor((d % 3600) / 60) + ' min ago';
}

// Redraws a section only when its data changed (open bodies and scroll stay put).
function changed(name, data) {
  const s = JSON.stringify(data);
  if (last[name] === s) return false;
  last[name] = s;
  return true;
}

function showEmpty(id, empty) {
  $(id).classList.toggle('hidden', !empty);
}

function drawClock(health, clock) {
  $('about').textContent = 'v' + health.version + ' · profile ' + health.profile;
  $('clock-mode').textContent = clock.mode === 'virtual' ? 'virtual: it moves only when advanced' : 'real time';
  $('clock-now').textContent = when(clock.now);
  $('clock-now').setAttribute('datetime', new Date(clock.now_ms).toISOString());
  $('clock-unix').textContent = '(' + clock.now + ')';
}

function drawTasks(videos, now) {
  const tasks = videos.data || [];
  $('tasks-count').textContent = tasks.length + (tasks.length === 1 ? ' task' : ' tasks');
  showEmpty('tasks-empty', tasks.length === 0);
  const rows = tasks.slice().reverse().map(({ owner, platform, task }) =>
    el('tr', { 'data-task-id': task.id, 'data-status': task.status },
      el('td', {}, el('code', { text: task.id })),
      el('td', { text: task.model }),
      el('td', { text: platform || '' }),
      el('td', {}, el('span', { class: 'badge st-' + task.status, text: task.status })),
      el('td', {}, el('progress', { max: 100, value: task.progress }), ' ' + task.progress + '%'),
      el('td', {}, when(task.created_at), el('br'), el('span', { class: 'mute', text: ago(now, task.created_at) })),
      el('td', { class: 'wrap', text: task.completed_at ? when(task.completed_at) : (task.error ? task.error.code + ': ' + task.error.message : '') }),
      el('td', { text: owner })));
  $('tasks').tBodies[0].replaceChildren(...rows);
}

function drawKeys(keys, now) {
  $('keys-count').textContent = keys.length + ' keys';
  const rows = keys.map((k) => {
    const status = KEY_STATUS[k.status] || 'status ' + k.status;
    const secret = k.key.length > 12 ? 'sk-' + k.key.slice(0, 4) + '…' + k.key.slice(-4) : 'sk-…';
    const expires = k.expired_time === -1 ? 'never' : when(k.expired_time) + (k.expired_time <= now ? ' (passed)' : '');
    const limits = [];
    if (k.model_limits_enabled) limits.push('models: ' + (k.model_limits || '(none)'));
    if (k.allow_ips) limits.push('IPs: ' + k.allow_ips.replace(/\n/g, ', '));
    if (k.group) limits.push('group: ' + k.group);
    return el('tr', { 'data-key-id': k.id },
      el('td', { text: k.id }),
      el('td', { text: k.name }),
      el('td', {}, el('span', { class: 'badge st-' + status, text: status })),
      el('td', {}, el('code', { text: secret, title: 'user ' + k.user_id })),
      el('td', { text: k.unlimited_quota ? 'unlimited' : k.remain_quota.toLocaleString('en') }),
      el('td', { text: k.used_quota.toLocaleString('en') }),
      el('td', { text: expires }),
      el('td', { class: 'wrap', text: limits.join(' · ') }));
  });
  $('keys').tBodies[0].replaceChildren(...rows);
}

function faultWhat(f) {
  if (f.kind === 'status') return 'status ' + f.status + (f.retry_after ? ', Retry-After ' + f.retry_after : '');
  if (f.kind === 'delay') return 'delay ' + f.ms + ' ms';
  return f.kind;
}

function drawFaults(faults) {
  $('faults-count').textContent = faults.length + (faults.length === 1 ? ' fault' : ' faults');
  showEmpty('faults-empty', faults.length === 0);
  const rows = faults.map((f) => {
    const remove = el('button', { type: 'button', text: 'Remove' });
    remove.addEventListener('click', () => act(() => call('DELETE', 'faults/' + f.id)));
    return el('tr', { 'data-fault-id': f.id },
      el('td', { text: f.id }),
      el('td', {}, el('code', { text: f.route })),
      el('td', { text: faultWhat(f) }),
      el('td', { text: f.fired }),
      el('td', { text: f.times === undefined ? 'always' : f.times }),
      el('td', { text: f.probability }),
      el('td', {}, remove));
  });
  $('faults').tBodies[0].replaceChildren(...rows);
}

function journalRow(r) {
  let body = '';
  if (r.body !== undefined) {
    const d = el('details', { 'data-seq': r.seq }, el('summary', { text: r.body_len + ' B' }), el('pre', { text: r.body }));
    d.open = openBodies.has(r.seq);
    d.addEventListener('toggle', () => (d.open ? openBodies.add(r.seq) : openBodies.delete(r.seq)));
    body = d;
  } else if (r.body_len !== undefined) {
    body = r.body_len + ' B';
  }
  const target = r.method + ' ' + r.path + (r.query ? '?' + r.query : '');
  const klass = 'badge s' + String(r.status).charAt(0);
  return el('tr', { 'data-seq': r.seq, 'data-status': r.status, 'data-fault': r.fault ? 'yes' : 'no' },
    el('td', { text: r.seq }),
    el('td', { text: when(Math.floor(r.at_ms / 1000)) }),
    el('td', { class: 'wrap' }, el('code', { text: target }), r.fault ? el('span', { class: 'mute', text: ' (fault: ' + r.fault + ')' }) : ''),
    el('td', {}, el('span', { class: klass, text: r.status })),
    el('td', { text: r.key_id === undefined ? '' : r.key_id }),
    el('td', { text: r.duration_us }),
    el('td', { class: 'wrap' }, body));
}

function drawJournal(journal) {
  const reqs = journal.requests || [];
  $('journal-count').textContent = journal.held + ' held of ' + journal.total + ' (capacity ' + journal.capacity + ')';
  showEmpty('journal-empty', reqs.length === 0);
  $('journal').tBodies[0].replaceChildren(...reqs.slice().reverse().map(journalRow));
  filterJournal();
}

function filterJournal() {
  const q = $('journal-filter').value.toLowerCase();
  const s = $('journal-status').value;
  for (const row of $('journal').tBodies[0].rows) {
    const status = row.getAttribute('data-status');
    const okStatus = s === '' || (s === 'fault' ? row.getAttribute('data-fault') === 'yes' : status.charAt(0) === s);
    const okText = q === '' || row.textContent.toLowerCase().includes(q);
    row.classList.toggle('hidden', !(okStatus && okText));
  }
}

async function refresh() {
  if (busy) return;
  busy = true;
  try {
    const [health, clock, keys, videos, journal, faults] = await Promise.all([
      call('GET', 'health'), call('GET', 'clock'), call('GET', 'keys'),
      call('GET', 'videos'), call('GET', 'requests?limit=200'), call('GET', 'faults'),
    ]);
    drawClock(health, clock);
    if (changed('tasks', [videos, clock.now])) drawTasks(videos, clock.now);
    if (changed('keys', [keys, clock.now])) drawKeys(keys, clock.now);
    if (changed('faults', faults)) drawFaults(faults);
    if (changed('journal', journal)) drawJournal(journal);
    const conn = $('conn');
    // UTC, like the mock's clock in the panel: one clock on the page, labelled.
    conn.textContent = 'live · updated ' + new Date().toISOString().slice(11, 19) + ' UTC (wall clock)';
    conn.className = 'conn live';
  } catch (e) {
    const conn = $('conn');
    conn.textContent = 'disconnected: ' + e.message;
    conn.className = 'conn down';
  } finally {
    busy = false;
  }
}

// Runs a control action, then redraws at once.
async function act(action) {
  try {
    await action();
    $('clock-note').textContent = '';
  } catch (e) {
    $('clock-note').textContent = e.message;
  }
  await refresh();
}

function advance(seconds) {
  act(() => call('POST', 'clock/advance', { seconds }));
}

document.querySelectorAll('[data-advance]').forEach((b) =>
  b.addEventListener('click', () => advance(Number(b.getAttribute('data-advance')))));
$('advance-form').addEventListener('submit', (e) => {
  e.preventDefault();
  const n = Number($('advance-seconds').value);
  if (Number.isFinite(n) && n >= 0) advance(n);
});
$('faults-clear').addEventListener('click', () => act(() => call('DELETE', 'faults')));
$('journal-filter').addEventListener('input', filterJournal);
$('journal-status').addEventListener('change', filterJournal);
$('pause').addEventListener('change', (e) => { paused = e.target.checked; });
setInterval(() => { if (!paused && !document.hidden) refresh(); }, POLL_MS);
refresh();
