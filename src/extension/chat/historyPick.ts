/** Conversation History as a quick pick: the earlier conversations, newest first; each can be deleted from its row. */
import * as vscode from 'vscode';
import type { ChatHistory, PastConversation } from './history';

type Item = vscode.QuickPickItem & { readonly conversation: PastConversation };

function when(at: number): string {
  const d = new Date(at);
  return `${d.toLocaleDateString()} ${d.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' })}`;
}

/** The session id of the conversation the developer picked to continue, or undefined. */
export function pickConversation(history: ChatHistory): Promise<string | undefined> {
  const t = vscode.l10n.t;
  const remove: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon('trash'), tooltip: t('Delete this conversation') };
  const items = (): Item[] =>
    history.list().map((conversation) => ({
      conversation,
      label: conversation.title,
      description: when(conversation.at),
      detail: conversation.messages === 1 ? t('1 message') : t('{0} messages', conversation.messages),
      buttons: [remove],
    }));
  const pick = vscode.window.createQuickPick<Item>();
  pick.title = t('Conversation History');
  pick.placeholder = history.list().length ? t('Continue an earlier conversation (the current one is kept here)') : t('No earlier conversation yet: New Session keeps the current one here.');
  pick.matchOnDescription = true;
  pick.items = items();
  return new Promise((resolve) => {
    let chosen: string | undefined;
    pick.onDidTriggerItemButton(async (e) => {
      await history.remove(e.item.conversation.sessionId);
      pick.items = items();
    });
    pick.onDidAccept(() => {
      chosen = pick.selectedItems[0]?.conversation.sessionId;
      pick.hide();
    });
    pick.onDidHide(() => {
      pick.dispose();
      resolve(chosen);
    });
    pick.show();
  });
}
