// The extension-host suite under @vscode/test-electron, for a desktop with internet (it downloads
// VS Code 1.100.3 into .vscode-test/). Not run in CI: there, test/host/runHostTests.ts runs the same
// suite in code-server.
//
//   npm run build && node --import tsx test/desktop/runTest.ts
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runTests } from '@vscode/test-electron';

async function main(): Promise<void> {
  const repoRoot = path.resolve(__dirname, '..', '..');
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-bridge-desktop-'));
  const workspace = path.join(tmp, 'workspace');
  const fixture = path.join(repoRoot, 'test', 'host', 'fixtures', 'workspace');
  if (fs.existsSync(fixture)) fs.cpSync(fixture, workspace, { recursive: true });
  else fs.mkdirSync(workspace, { recursive: true });
  const results = path.join(tmp, 'results.json');
  const settingsFile = path.join(repoRoot, 'test', 'host', 'fixtures', 'settings.json');
  fs.mkdirSync(path.join(tmp, 'user-data', 'User'), { recursive: true });
  fs.writeFileSync(
    path.join(tmp, 'user-data', 'User', 'settings.json'),
    fs.existsSync(settingsFile) ? fs.readFileSync(settingsFile) : JSON.stringify({ 'agentBridge.autoConnect': false }),
  );
  try {
    await runTests({
      version: '1.100.3',
      extensionDevelopmentPath: repoRoot,
      extensionTestsPath: path.join(repoRoot, 'out', 'test', 'suite', 'index.js'),
      launchArgs: [workspace, '--disable-extensions', '--disable-workspace-trust', '--user-data-dir', path.join(tmp, 'user-data')],
      extensionTestsEnv: { AGENT_BRIDGE_TEST_RESULTS: results },
    });
    console.log('desktop: all extension-host tests passed');
  } finally {
    if (fs.existsSync(results)) {
      const r = JSON.parse(fs.readFileSync(results, 'utf8')) as { passed: number; failed: number };
      console.log(`desktop: ${r.passed} passed, ${r.failed} failed`);
    }
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
