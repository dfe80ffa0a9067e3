import * as vscode from 'vscode';

/**
 * The editor group a proposal's diff opens in. Diffs share one review group: the one a proposal's
 * diff is open in already (so four proposals do not make four columns); else, from the chat tab
 * (or, opened in the background, from any editor), beside it, so what the developer works in stays
 * in view; else the active group.
 */
export function reviewColumn(proposalScheme: string, background: boolean): vscode.ViewColumn | undefined {
  const review = vscode.window.tabGroups.all.find((g) => g.tabs.some((tab) => tab.input instanceof vscode.TabInputTextDiff && tab.input.modified.scheme === proposalScheme));
  if (review) return review.viewColumn;
  const active = vscode.window.tabGroups.activeTabGroup.activeTab;
  return active?.input instanceof vscode.TabInputWebview || (background && active !== undefined) ? vscode.ViewColumn.Beside : undefined;
}
