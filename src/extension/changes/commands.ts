import type { AgentChangesView } from './agentChangesView';

/** The Agent Changes view's commands; a row's commands act only on rows the view made. */
export function changesCommands(view: AgentChangesView) {
  return {
    'agentBridge.openAgentChangeDiff': (row: unknown) => view.openDiffOfRow(row),
    'agentBridge.revertAgentChange': (row: unknown) => view.revertRow(row),
    'agentBridge.revertAllAgentChanges': () => view.revertAll(),
    'agentBridge.clearAgentChanges': () => view.clear(),
  };
}
