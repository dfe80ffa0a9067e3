/** The handle VS Code gives a webview script; it may be acquired only once, so it lives here. */
import type { FromWebview } from '../src/extension/chat/contract';

interface VsCodeApi {
  postMessage(message: FromWebview): void;
}

declare function acquireVsCodeApi(): VsCodeApi;

const api = acquireVsCodeApi();

export function post(message: FromWebview): void {
  api.postMessage(message);
}
