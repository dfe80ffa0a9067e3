/**
 * Text of the agent's (a description, a path) made inert for a notification: VS Code turns
 * `[label](command:…)` in a notification into a link that runs any command with any arguments
 * when clicked. A zero-width space between `]` and `(`, and in every scheme, keeps the text as
 * written and makes it no link.
 */
export function inert(text: string): string {
  return text.replace(/\]\s*\(/g, ']\u200b(').replace(/\b(command|https?|file|vscode|vscode-insiders):/gi, '$1\u200b:');
}
