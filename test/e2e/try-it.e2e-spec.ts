import { ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { Browser, Page } from 'playwright-core';

import { randomToken } from '../../src/common/ids';
import { startApp, TestApp } from '../support/app';
import {
  clickAndWait,
  describeInBrowser,
  launchBrowser,
  signInThroughForm,
} from '../support/browser';
import { GatewayApp, startGatewayApp } from '../support/gateway-app';
import { runSandboxCli } from '../support/sandbox-cli';

const ROOT = join(__dirname, '..', '..');

/**
 * A ```bash block, or a `<!-- person: step -->` marker, in document order. A block after
 * `<!-- skip: why -->` is not run: the test does what it does (starts processes) itself.
 */
type Step =
  | { kind: 'bash'; code: string; prints: string[]; line: number; skip: boolean }
  | { kind: 'person'; step: string };

/** The steps of docs/try-it.md after its first block (the sandbox command, which the test runs itself). */
export function tryItSteps(markdown: string): Step[] {
  const steps: Step[] = [];
  const re = /^```bash\n([\s\S]*?)^```$|^<!-- person: ([a-z-]+) -->$|^<!-- (skip): /gm;
  let skipNext = false;
  for (let m = re.exec(markdown); m; m = re.exec(markdown)) {
    if (m[3]) {
      skipNext = true;
    } else if (m[2]) {
      steps.push({ kind: 'person', step: m[2] });
    } else {
      const code = m[1];
      const prints = [...code.matchAll(/# prints: (.+)$/gm)].map((p) => p[1].trim());
      steps.push({
        kind: 'bash',
        code,
        prints,
        line: markdown.slice(0, m.index).split('\n').length,
        skip: skipNext,
      });
      skipNext = false;
    }
  }
  return steps.slice(1);
}

/** One bash, fed block after block like a person pasting: variables and functions carry over. */
class Shell {
  private out = '';
  private readonly proc: ChildProcessWithoutNullStreams;
  private exited: number | null = null;

  constructor(cwd: string) {
    this.proc = spawn('bash', ['--noprofile', '--norc'], { cwd, env: { ...process.env } });
    this.proc.stdout.on('data', (c: Buffer) => (this.out += c.toString()));
    this.proc.stderr.on('data', (c: Buffer) => (this.out += c.toString()));
    this.proc.on('exit', (code) => (this.exited = code ?? -1));
    this.proc.stdin.write('set -eo pipefail\n');
  }

  /** Runs `code`; its output. Fails when the shell stops (a command failed: set -e) or hangs. */
  async run(code: string, timeoutMs = 30_000): Promise<string> {
    const marker = `@@done-${randomToken(8)}`;
    const from = this.out.length;
    this.proc.stdin.write(`${code}\necho ${marker}\n`);
    const deadline = Date.now() + timeoutMs;
    while (!this.out.includes(marker, from)) {
      if (this.exited !== null) {
        throw new Error(`the shell stopped (exit ${this.exited}):\n${this.out.slice(from)}`);
      }
      if (Date.now() > deadline) {
        throw new Error(`timed out:\n${this.out.slice(from)}`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    return this.out.slice(from, this.out.indexOf(marker, from));
  }

  async variable(name: string): Promise<string> {
    return (await this.run(`printf '%s\\n' "$${name}"`)).trim();
  }

  close(): void {
    this.proc.kill();
  }
}

describe('the try-it harness', () => {
  it('reads blocks, prints markers, person steps and skips in order', () => {
    const steps = tryItSteps(
      [
        '```bash',
        'npm run sandbox',
        '```',
        '<!-- skip: starts a process -->',
        '```bash',
        'npm start',
        '```',
        '```bash',
        'echo ok   # prints: ok',
        '```',
        '<!-- person: approve -->',
      ].join('\n'),
    );
    expect(steps).toEqual([
      { kind: 'bash', code: 'npm start\n', prints: [], line: 5, skip: true },
      { kind: 'bash', code: 'echo ok   # prints: ok\n', prints: ['ok'], line: 8, skip: false },
      { kind: 'person', step: 'approve' },
    ]);
  });

  it('stops at a failing command, even inside a pipeline', async () => {
    const shell = new Shell(tmpdir());
    try {
      expect(await shell.run('X=1; echo "$X"')).toBe('1\n');
      await expect(shell.run('false | cat; echo never')).rejects.toThrow(/the shell stopped/);
    } finally {
      shell.close();
    }
  });
});

describeInBrowser('docs/try-it.md, block by block', () => {
  let t: TestApp;
  let dir: string;
  let shell: Shell;
  let browser: Browser;
  let person: Page;
  let dealer: Page;
  let env: Record<string, string>;
  let gateway: GatewayApp | undefined;

  beforeAll(async () => {
    t = await startApp();
    dir = mkdtempSync(join(tmpdir(), 'try-it-'));
    symlinkSync(join(ROOT, 'docs'), join(dir, 'docs'));
    // The page's first block, as a person runs it (from the repository root; here the file goes to `dir`).
    env = await runSandboxCli(t, join(dir, '.env.sandbox'));
    shell = new Shell(dir);
    browser = await launchBrowser();
    person = await (await browser.newContext()).newPage();
    dealer = await (await browser.newContext()).newPage();
  }, 90_000);

  afterAll(async () => {
    shell?.close();
    await browser?.close();
    await gateway?.close();
    rmSync(dir, { recursive: true, force: true });
    await t?.close();
  });

  async function signIn(page: Page, email: string, password: string): Promise<void> {
    await signInThroughForm(page, `${env.APP_URL}/login`, email, password);
  }

  /** Clicks the first button.approve while there is one (a second page may ask to confirm). */
  async function approveAll(page: Page): Promise<void> {
    for (let i = 0; i < 3; i++) {
      const confirm = page.locator('form:has(input[name="confirm"][value="yes"]) [type="submit"]');
      const approve = page.locator('button.approve');
      const target = (await confirm.count()) > 0 ? confirm : approve;
      if ((await target.count()) === 0) {
        return;
      }
      await clickAndWait(page, () => target.first().click());
    }
  }

  const PERSON_STEPS: Record<string, () => Promise<void>> = {
    approve: async () => {
      await person.goto(`${env.APP_URL}/approvals`);
      const form = person.locator('form[action$="/approve"] [type="submit"]');
      expect(await form.count()).toBeGreaterThan(0);
      await clickAndWait(person, () => form.first().click());
      await approveAll(person);
    },
    pay: async () => {
      const page = await (await browser.newContext()).newPage();
      await page.goto(await shell.variable('PAY_URL'));
      await clickAndWait(page, () => page.locator('#simulate-success').click());
      await page.context().close();
    },
    'forex-declare': async () => {
      const fxo = await shell.variable('FXO');
      await person.goto(`${env.APP_URL}/forex/declarations/${fxo}`);
      await person.locator('#confirm').check();
      await clickAndWait(person, () => person.locator('button.approve').click());
    },
    'forex-book': async () => {
      const fxo = await shell.variable('FXO');
      await signIn(dealer, env.DEALER, env.DEALER_PW);
      await dealer.goto(`${env.APP_URL}/forex/desk/files/${fxo}`);
      await dealer.locator('#deal-reference').fill('DL-TRY-IT');
      await clickAndWait(dealer, () =>
        dealer.locator(`form[action="/app/forex/desk/files/${fxo}/book"] button`).click(),
      );
    },
    'authorise-mandate': async () => {
      await person.goto(await shell.variable('AUTH_URL'));
      await approveAll(person);
    },
  };

  it('runs every block in order, each printing what the page says it prints', async () => {
    const steps = tryItSteps(readFileSync(join(ROOT, 'docs', 'try-it.md'), 'utf8'));
    expect(steps.filter((s) => s.kind === 'bash').length).toBeGreaterThanOrEqual(10);
    await signIn(person, env.PERSON, env.PERSON_PW);
    for (const step of steps) {
      if (step.kind === 'person') {
        const act = PERSON_STEPS[step.step];
        expect(act).toBeDefined();
        await act();
        continue;
      }
      if (step.skip) {
        // The block starts the simulator and the service on the gateway rail: the same, in process,
        // on this file's database (the sandbox's credentials stay valid); the shell points at them.
        gateway = await startGatewayApp();
        await shell.run(`BASE=${gateway.t.url}; SIM=${gateway.gw.sim.url}`);
        continue;
      }
      let out: string;
      try {
        out = await shell.run(step.code);
      } catch (err) {
        throw new Error(`docs/try-it.md block at line ${step.line}: ${(err as Error).message}`);
      }
      expect(step.prints.length).toBeGreaterThan(0);
      for (const p of step.prints) {
        if (!out.includes(p)) {
          throw new Error(
            `docs/try-it.md block at line ${step.line} did not print "${p}"; it printed:\n${out}`,
          );
        }
      }
    }
  }, 120_000);
});
