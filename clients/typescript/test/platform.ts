/**
 * The platform a test plays against: test/start_platform.py run with the project's Python
 * (MAUMAU_PYTHON, default ../../.venv/bin/python), which starts `python -m maumau.run` with
 * every service on a free port and prints their addresses.
 */

import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { createInterface } from "node:readline";

const PACKAGE = fileURLToPath(new URL("../..", import.meta.url));
const HELPER = `${PACKAGE}test/start_platform.py`;
const START_SECONDS = 180;

export interface RunningPlatform {
  /** Each service's host:port by name ("engine", "matchmaking", "bots", ...). */
  addresses: Record<string, string>;
  stop(): Promise<void>;
}

export function pythonPath(): string {
  return process.env.MAUMAU_PYTHON || `${PACKAGE}../../.venv/bin/python`;
}

/** Start the platform with `settings` (environment variables) over the tests' own. */
export async function startPlatform(
  settings: Record<string, string> = {},
): Promise<RunningPlatform> {
  const child = spawn(pythonPath(), [HELPER, JSON.stringify(settings)], {
    cwd: PACKAGE,
    stdio: ["pipe", "pipe", "inherit"],
  });
  const timer = setTimeout(() => child.kill("SIGTERM"), START_SECONDS * 1000);
  try {
    const lines = createInterface({ input: child.stdout! });
    const [line] = (await Promise.race([
      once(lines, "line"),
      once(child, "exit").then(([code]) => {
        throw new Error(`${HELPER} exited with ${code} before the platform served`);
      }),
    ])) as [string];
    lines.close();
    return { addresses: JSON.parse(line) as Record<string, string>, stop: () => stop(child) };
  } catch (error) {
    await stop(child);
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) {
    return;
  }
  const exited = once(child, "exit");
  child.stdin?.end(); // the helper stops the platform when its input closes
  const killer = setTimeout(() => child.kill("SIGKILL"), 60_000);
  await exited;
  clearTimeout(killer);
}
