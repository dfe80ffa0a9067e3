/**
 * The chat webview's entry point (bundled to dist/webview/chat.js). It says `ready`, then builds
 * itself from `init`; every message is checked against the contract before it touches the DOM.
 */
import '@vscode/codicons/dist/codicon.css';
import './styles/base.css';
import './styles/transcript.css';
import './styles/markdown.css';
import './styles/narrow.css';
import { parseToWebview, type ToWebview } from '../src/extension/chat/contract';
import { createMarkdownRenderer } from './render/markdown';
import { ChatView } from './view/chatView';
import { post } from './vscodeApi';

const root = document.getElementById('root') ?? document.body;
const markdown = createMarkdownRenderer(window);
let view: ChatView | undefined;

function handle(m: ToWebview): void {
  switch (m.type) {
    case 'init':
      view = new ChatView(root, m.strings, markdown, m.docked === true);
      view.setConnection(m.connection);
      view.setEntries(m.entries);
      view.setBusy(m.busy);
      view.setChanges(m.changes);
      view.setReadOnly(m.readOnly);
      view.focus();
      return;
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

window.addEventListener('message', (event: MessageEvent<unknown>) => {
  const parsed = parseToWebview(event.data);
  if (!parsed.ok) {
    console.error(`Agent Bridge chat: ignored a message that does not match the contract: ${parsed.error}`);
    return;
  }
  handle(parsed.message);
});

post({ type: 'ready' });
