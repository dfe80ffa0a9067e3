import * as vscode from 'vscode';
import type { BridgeController } from './controller';

/** The commands of package.json, plus the status bar's menu. Each is a few lines over the controller. */
export function registerCommands(controller: BridgeController, channel: vscode.LogOutputChannel): vscode.Disposable[] {
  const connect = () => {
    const problem = controller.connect();
    if (problem) void vscode.window.showErrorMessage(`Agent Bridge: ${problem}`);
  };
  return [
    vscode.commands.registerCommand('agentBridge.connect', connect),
    vscode.commands.registerCommand('agentBridge.disconnect', () => controller.disconnect()),
    vscode.commands.registerCommand('agentBridge.showLog', () => channel.show(true)),
    vscode.commands.registerCommand('agentBridge.statusMenu', async () => {
      const items = [
        controller.isActive
          ? { label: '$(debug-disconnect) Disconnect', run: () => controller.disconnect() }
          : { label: '$(plug) Connect', run: connect },
        { label: '$(refresh) Reconnect', run: connect },
        { label: '$(output) Show Log', run: () => channel.show(true) },
      ];
      const picked = await vscode.window.showQuickPick(items, { title: `Agent Bridge (${controller.state})` });
      picked?.run();
    }),
  ];
}
