// What the browser tests share: a real melee-server on 127.0.0.1 (port 0 first, then the same
// port again after a restart), Debian's Chromium driven by playwright-core, and the checks every
// page gets (no Content-Security-Policy violation, no script error).

import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';

export const kChromium = process.env.MELEE_CHROMIUM || '/usr/bin/chromium';

/** A melee-server process with its data in a temporary folder; start() again after stop(). */
export class ServerProcess {
  constructor(binary) {
    this.binary = binary;
    this.dir = mkdtempSync(path.join(tmpdir(), 'melee-web-'));
    this.port = 0;
    this.process = null;
    this.log = '';
  }

  get origin() {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Starts the server (on the port it had before, if any); resolves once it listens. */
  start() {
    const args = ['--port', String(this.port), '--data-dir', path.join(this.dir, 'data'),
      '--listen', '127.0.0.1'];
    // The web files to serve (default: the server's own; set to try pages on another binary).
    if (process.env.MELEE_WEB_ROOT) args.push('--web-root', process.env.MELEE_WEB_ROOT);
    const child = spawn(this.binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    this.process = child;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`melee-server did not start:\n${this.log}`)),
        15000);
      const read = (chunk) => {
        this.log += chunk;
        const found = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(this.log.slice(-2000));
        if (found && this.process === child && child.listening !== true) {
          child.listening = true;
          this.port = Number(found[1]);
          clearTimeout(timer);
          resolve(this.port);
        }
      };
      child.stdout.on('data', read);
      child.stderr.on('data', read);
      child.on('exit', (code) => {
        if (child.listening !== true) {
          clearTimeout(timer);
          reject(new Error(`melee-server exited ${code} before listening:\n${this.log}`));
        }
      });
    });
  }

  /** Stops the server with SIGTERM and waits for it to exit. */
  async stop() {
    const child = this.process;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.on('exit', resolve));
    child.kill('SIGTERM');
    await exited;
    this.process = null;
  }

  async dispose() {
    await this.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Launches headless Chromium (Debian's, not a downloaded build). */
export function launchBrowser() {
  return chromium.launch({ executablePath: kChromium, headless: true,
    args: ['--no-sandbox', '--disable-dev-shm-usage'] });
}

/**
 * Opens a new page in `context` that records every WebSocket frame it receives and fails the
 * test on any console error (a CSP violation is one) or uncaught exception.
 */
export async function openPage(context, problems) {
  const page = await context.newPage();
  page.framesReceived = [];
  page.on('websocket', (ws) => {
    ws.on('framereceived', (frame) => page.framesReceived.push(String(frame.payload)));
  });
  page.on('console', (message) => {
    if (message.type() === 'error' && !/Failed to load resource|WebSocket connection/.test(message.text())) {
      problems.push(`console error: ${message.text()}`);
    }
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  return page;
}

/** The folder the screenshots go to (created). */
export function screenshotDir() {
  const dir = process.env.MELEE_SCREENSHOTS || path.join(process.cwd(), 'screenshots');
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** The server binary: the first argument, or $MELEE_SERVER_BINARY. */
export function serverBinary() {
  const binary = process.argv[2] || process.env.MELEE_SERVER_BINARY;
  if (!binary) throw new Error('usage: node <test>.mjs MELEE_SERVER_BINARY [SCREENSHOT_DIR]');
  if (process.argv[3]) process.env.MELEE_SCREENSHOTS = process.argv[3];
  return binary;
}

/** Saves a full-page screenshot of `page` as `name` in the screenshot folder. */
export const shot = (page, name) => page.screenshot({ path: path.join(screenshotDir(), name), fullPage: true });

/** Whether `selector` matches anything on `page` now. */
export const visible = async (page, selector) => (await page.locator(selector).count()) > 0;

/** The last event a match page shows ("Last event #N" in its summary). */
export async function lastSeq(page) {
  const text = await page.locator('#summary').innerText();
  return Number(/Last event\s+#(\d+)/.exec(text)?.[1] || 0);
}

/**
 * Waits until every page shows the same last event for a moment: nobody acts on a stale view.
 * (Deadlines here and in the tests use performance.now(), a monotonic clock: the test machines'
 * wall clock has been seen to jump, and Date.now() then ended a 15 s wait after 2 s.)
 */
export async function settle(pages) {
  const end = performance.now() + 15000;
  let stable = 0;
  while (performance.now() < end) {
    const seqs = await Promise.all(pages.map(lastSeq));
    stable = seqs.every((s) => s === seqs[0]) ? stable + 1 : 0;
    if (stable >= 3) return seqs[0];
    await new Promise((r) => setTimeout(r, 60));
  }
  throw new Error('the pages did not settle on the same event');
}
