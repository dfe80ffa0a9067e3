/**
 * The chat webview's entry point (bundled to dist/webview/chat.js). It says `ready`, then builds
 * itself from `init`; every message is checked against the contract before it touches the DOM.
 */
import '@vscode/codicons/dist/codicon.css';
import './styles/base.css';
import './styles/transcript.css';
import './styles/markdown.css';
import './styles/composer.css';
import './styles/narrow.css';
import { parseToWebview, type ToWebview } from '../src/extension/chat/contract';
import { createMarkdownRenderer } from './render/markdown';
import { ChatView } from './view/chatView';
import { post, savedState, type SavedState } from './vscodeApi';

const root = document.getElementById('root') ?? document.body;
const markdown = createMarkdownRenderer(window);
let view: ChatView | undefined;

function handle(m: ToWebview): void {
  switch (m.type) {
    case 'init': {
      // Read before the view is built: building it saves its own (empty) state.
      const saved = savedState();
      view = new ChatView(root, m.strings, markdown, m.docked === true);
      view.setConnection(m.connection);
      view.setEntries(m.entries);
      view.setBusy(m.busy);
      view.setChanges(m.changes);
      view.setReadOnly(m.readOnly);
      view.setContext(m.context);
      view.setActiveFile(m.activeFile);
      view.setCommands(m.commands);
      view.focus();
      restore(view, saved, m.context.length > 0);
      return;
    }
    case 'context':
      return view?.setContext(m.context);
    case 'activeFile':
      return view?.setActiveFile(m.path);
    case 'commands':
      return view?.setCommands(m.commands);
    case 'suggestions':
      return view?.setSuggestions(m.requestId, m.items);
    case 'draft':
      return view?.restoreDraft(m.text, m.replace === true);
    case 'connection':
      return view?.setConnection(m.connection);
    case 'trust':
      return view?.setReadOnly(m.readOnly);
    case 'entry':
      return view?.upsert(m.entry);
    case 'entries':
      return view?.setEntries(m.entries);
    case 'busy':
      return view?.setBusy(m.busy);
    case 'changes':
      return view?.setChanges(m.changes);
    case 'focus':
      return view?.focus();
    default: {
      const unreachable: never = m;
      return unreachable;
    }
  }
}

/**
 * What the developer left when the view was hidden or the window reloaded: the draft, the
 * attachments (added again through the extension, which checks each as when it was first added;
 * after a hide the extension still has them) and where they were reading.
 */
function restore(v: ChatView, saved: SavedState, hasChips: boolean): void {
  if (saved.draft) v.restoreDraft(saved.draft);
  if (!hasChips) for (const c of saved.chips ?? []) post({ type: 'attach', kind: c.kind, path: c.path, label: c.label, ...(c.startLine ? { startLine: c.startLine, endLine: c.endLine } : {}) });
  if (saved.scrollTop !== undefined) v.restoreScroll(saved.scrollTop);
}

window.addEventListener('message', (event: MessageEvent<unknown>) => {
  const parsed = parseToWebview(event.data);
  if (!parsed.ok) {
    console.error(`Agent Bridge chat: ignored a message that does not match the contract: ${parsed.error}`);
    return;
  }
  handle(parsed.message);
});

post({ type: 'ready' });
