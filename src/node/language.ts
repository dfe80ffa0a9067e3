import type { MessageBundle } from '../core/l10n';
import zhCn from '../../l10n/bundle.l10n.zh-cn.json';

/**
 * The headless host's message bundle for a locale tag: the same file VS Code loads for a zh-cn
 * display language, built into the host's script (it may run far from the extension's l10n folder).
 * 'zh-CN', 'zh-Hans', 'zh', 'zh-SG' and 'zh_CN.UTF-8' read as Simplified Chinese; anything else
 * as English, which needs no bundle (undefined).
 */
export function bundleForLocale(tag: string | undefined): MessageBundle | undefined {
  const t = (tag ?? '').toLowerCase().replace('_', '-');
  const chinese = t === 'zh' || t.startsWith('zh-cn') || t.startsWith('zh-hans') || t.startsWith('zh-sg');
  return chinese ? zhCn : undefined;
}
