/**
 * A small TypeScript project of the names a user writes: a namespace merged with an interface,
 * nested namespaces (`Geo.Util`, `Outer.Inner`), a namespace merged with a type alias and
 * default-exported, modules in a `$` folder, three functions named `load`, and calls through them.
 */

/** A namespace merged with an interface, and a nested namespace calling into it (both fixtures use it). */
export const SHAPES_TS = [
  'export interface Shape {',
  '  area(): number;',
  '}',
  'export namespace Shape {',
  '  export function unit(): Shape {',
  '    return { area: () => 1 };',
  '  }',
  '  export function twice(s: Shape): number {',
  '    return helper(s) * 2;',
  '  }',
  '  function helper(s: Shape): number {',
  '    return s.area();',
  '  }',
  '}',
  'export namespace Geo.Util {',
  '  export function norm(): number {',
  '    return Shape.twice(Shape.unit());',
  '  }',
  '}',
  '',
].join('\n');

export const TS_NAMES_PROJECT: Record<string, string> = {
  'src/shapes.ts':
    SHAPES_TS +
    [
      'export namespace Outer {',
      '  export namespace Inner {',
      '    export function deep(): number {',
      '      return Geo.Util.norm();',
      '    }',
      '  }',
      '}',
      '',
    ].join('\n'),
  'src/cfg.ts': 'type Cfg = { a: number };\nnamespace Cfg {\n  export function load(): Cfg {\n    return { a: 1 };\n  }\n}\nexport default Cfg;\n',
  'src/$lib/store.ts': 'export function load(): number {\n  return 1;\n}\n',
  'src/legacy/cfg.ts': 'export function load(): number {\n  return 2;\n}\n',
  'src/$lib/util.ts': 'export function pad(s: string): string {\n  return s.trim();\n}\n',
  'src/app.ts': [
    "import { Shape } from './shapes';",
    "import * as geo from './shapes';",
    "import Cfg from './cfg';",
    "import { pad } from './$lib/util';",
    'export function main(): number {',
    "  pad('x');",
    '  Cfg.load();',
    '  return Shape.twice(Shape.unit()) + geo.Outer.Inner.deep();',
    '}',
    '',
  ].join('\n'),
};
