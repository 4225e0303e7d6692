// Starting the master and knowing it serves: nginx logs "start worker
// processes" once it has loaded the configuration and bound every listening
// socket, so from then on connections are accepted (queued until a worker
// takes them).
import type { ControlLog } from './controlLog.js';
import { describeFailures, isLogged, parseErrorLog } from './errorLogEntries.js';
import { describeExit, MasterProcess } from './masterProcess.js';
import { nginxArguments } from './nginxArguments.js';
import { clearSocketDir, type PrefixLayout } from './prefixLayout.js';

/** Runs `layout.configFile`; rejects with nginx's errors if it does not come up within `timeoutMs`. */
export async function launchMaster(
  binary: string,
  layout: PrefixLayout,
  controlLog: ControlLog,
  timeoutMs: number,
): Promise<MasterProcess> {
  await controlLog.clear();
  await clearSocketDir(layout);
  const follower = await controlLog.follow();
  try {
    const master = await MasterProcess.spawn(binary, nginxArguments(layout, layout.configFile));
    const { lines, end } = await follower.readUntil(
      (line) => isLogged(line, master.pid, 'start worker processes'),
      Date.now() + timeoutMs,
      () => master.exit !== undefined,
    );
    if (end === 'found') return master;

    master.killGroup();
    const exit = await master.exited;
    const failures = describeFailures(parseErrorLog(lines), master.pid);
    const what = end === 'deadline' ? `did not start within ${timeoutMs} ms` : describeExit(exit);
    throw new Error(failures === '' ? `nginx ${what}` : `nginx ${what}:\n${failures}`);
  } finally {
    await follower.close();
  }
}
