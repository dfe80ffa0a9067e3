import * as vscode from 'vscode';
import type { ChatFeature } from './feature';

/** Opening the chat, giving it files and selections, and switching conversations. */
export function chatCommands(chat: ChatFeature) {
  return {
    'agentBridge.openChat': () => chat.panel.showDocked(),
    'agentBridge.openChatInEditor': () => chat.panel.showInEditor(),
    'agentBridge.showHistory': () => chat.showHistory(),
    'agentBridge.addSelectionToChat': () => chat.addSelection(),
    // From the explorer: the clicked file and, with several selected, all of them.
    'agentBridge.addFileToChat': (uri?: vscode.Uri, uris?: vscode.Uri[]) => chat.addFiles(Array.isArray(uris) && uris.length ? uris : uri instanceof vscode.Uri ? [uri] : []),
    // Nothing to confirm: the conversation left is kept in History (older callers may still pass `{ confirmed: true }`).
    'agentBridge.newSession': async () => {
      if (await chat.newSession()) await chat.panel.showDocked();
    },
  };
}
