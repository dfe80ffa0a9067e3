/**
 * One small project written six times, in TypeScript, JavaScript, Python, Go, C# and Kotlin, for
 * the code-tool tests: a class Service whose `handle` calls its own `check` (which calls `handle`
 * again: a cycle, through a field of declared type `Repo`), a function `log` of another file or
 * package, and `mystery.call(…)` that nothing in the project declares (unresolved); and an entry
 * point in another file that creates a Service and calls `handle` (a caller).
 */
export const POLYGLOT_PROJECT: Record<string, string> = {
  // ---- TypeScript: overloads are signatures before the implementation
  'ts/shop/service.ts': `import { log } from './util';
import { Repo } from './repo';

/** Handles orders. */
export class Service {
  private readonly repo: Repo = new Repo();

  constructor(private readonly name: string) {}

  /** Handles one order. */
  handle(id: number): void;
  handle(id: string): void;
  handle(id: number | string): void {
    this.check(id);
    log(this.name);
    mystery.call(id);
  }

  check(id: number | string): void {
    if (this.repo.save(id)) this.handle(String(id));
  }
}
`,
  'ts/shop/repo.ts': `export class Repo {
  save(x: unknown): boolean {
    return !!x;
  }
}
`,
  'ts/shop/util.ts': `/** Writes a line. */
export function log(s: string): void {
  console.log(s);
}
`,
  'ts/main.ts': `import { Service } from './shop/service';

export function main(): void {
  new Service('a').handle(1);
}
`,
  'ts/view.tsx': `import { Service } from './shop/service';

export function View(props: { id: number }) {
  return <div onClick={() => new Service('v').handle(props.id)}>{props.id}</div>;
}
`,
  // ---- JavaScript (CommonJS)
  'js/shop/service.js': `const { log } = require('./util');
const { Repo } = require('./repo');

/** Handles orders. */
class Service {
  constructor(name) {
    this.name = name;
    this.repo = new Repo();
  }

  /** Handles one order. */
  handle(id) {
    this.check(id);
    log(this.name);
    mystery.call(id);
  }

  check(id) {
    if (this.repo.save(id)) this.handle(String(id));
  }
}

module.exports = { Service };
`,
  'js/shop/repo.js': `class Repo {
  save(x) {
    return !!x;
  }
}
module.exports = { Repo };
`,
  'js/shop/util.js': `function log(s) {
  console.log(s);
}
module.exports = { log };
`,
  'js/main.mjs': `import { Service } from './shop/service.js';

export function main() {
  new Service('a').handle(1);
}
`,
  // ---- Python
  'py/shop/__init__.py': '',
  'py/shop/service.py': `from .util import log
from .repo import Repo


class Service:
    """Handles orders."""

    def __init__(self, name):
        self.name = name
        self.repo = Repo()

    def handle(self, id):
        """Handles one order."""
        self.check(id)
        log(self.name)
        mystery.call(id)

    def check(self, id):
        if self.repo.save(id):
            self.handle(str(id))
`,
  'py/shop/repo.py': `class Repo:
    def save(self, x):
        return bool(x)
`,
  'py/shop/util.py': `def log(s):
    """Writes a line."""
    print(s)
`,
  'py/main.py': `from shop.service import Service


def main():
    Service("a").handle(1)
`,
  // ---- Go: methods attached by receiver; the package spans files
  'go/go.mod': 'module example.com/demo\n\ngo 1.22\n',
  'go/shop/service.go': `package shop

// Service handles orders.
type Service struct {
	name string
	repo *Repo
}

// Handle handles one order.
func (s *Service) Handle(id int) {
	s.Check(id)
	Log(s.name)
	mystery.Call(id)
}

func (s *Service) Check(id int) {
	if s.repo.Save(id) {
		s.Handle(id + 1)
	}
}
`,
  'go/shop/repo.go': `package shop

type Repo struct{}

func (r *Repo) Save(x int) bool {
	return x > 0
}
`,
  'go/shop/util.go': `package shop

import "fmt"

// Log writes a line.
func Log(s string) {
	fmt.Println(s)
}
`,
  'go/cmd/main.go': `package main

import "example.com/demo/shop"

func main() {
	s := &shop.Service{}
	s.Handle(1)
}
`,
  // ---- C#: overloads; a file-scoped namespace; a static class in another namespace
  'cs/Service.cs': `using Demo.Util;

namespace Demo.Shop
{
    /// <summary>Handles orders.</summary>
    public class Service
    {
        private readonly Repo repo = new Repo();

        /// <summary>Handles one order.</summary>
        public void Handle(int id)
        {
            Check(id);
            Logger.Log("x");
            mystery.Call(id);
        }

        public void Handle(string id) => Handle(id.Length);

        public void Check(int id)
        {
            if (repo.Save(id)) this.Handle(id + 1);
        }
    }
}
`,
  'cs/Repo.cs': `namespace Demo.Shop;

public class Repo
{
    public bool Save(int x) { return x > 0; }
}
`,
  'cs/Logger.cs': `namespace Demo.Util
{
    public static class Logger
    {
        public static void Log(string s) { System.Console.WriteLine(s); }
    }
}
`,
  'cs/Program.cs': `using Demo.Shop;

namespace Demo
{
    public class Program
    {
        public static void Main()
        {
            var s = new Service();
            s.Handle(1);
        }
    }
}
`,
  // ---- Kotlin: overloads; a top-level function of another package imported by name
  'kt/shop/Service.kt': `package demo.shop

import demo.util.log

/** Handles orders. */
class Service(private val name: String) {
    private val repo: Repo = Repo()

    /** Handles one order. */
    fun handle(id: Int) {
        check(id)
        log(name)
        mystery.call(id)
    }

    fun handle(id: String) {
        handle(id.length)
    }

    fun check(id: Int) {
        if (repo.save(id)) this.handle(id + 1)
    }
}
`,
  'kt/shop/Repo.kt': `package demo.shop

class Repo {
    fun save(x: Int): Boolean {
        return x > 0
    }
}
`,
  'kt/util/Util.kt': `package demo.util

/** Writes a line. */
fun log(s: String) {
    println(s)
}
`,
  'kt/Main.kt': `package demo

import demo.shop.Service

fun main() {
    Service("a").handle(1)
}
`,
};

export interface LanguageCase {
  readonly language: string;
  /** The Service class as read_class should name it. */
  readonly service: string;
  readonly servicePath: string;
  readonly handle: string;
  readonly check: string;
  readonly save: string;
  readonly log: string;
  /** The file and function of the entry point that calls handle. */
  readonly entry: string;
  /** Declarations read_method returns for handle. */
  readonly overloads: number;
}

export const CASES: readonly LanguageCase[] = [
  { language: 'typescript', service: 'ts.shop.service.Service', servicePath: 'ts/shop/service.ts', handle: 'handle', check: 'check', save: 'save', log: 'log', entry: 'ts/main.ts:main', overloads: 3 },
  { language: 'javascript', service: 'js.shop.service.Service', servicePath: 'js/shop/service.js', handle: 'handle', check: 'check', save: 'save', log: 'log', entry: 'js/main.mjs:main', overloads: 1 },
  { language: 'python', service: 'py.shop.service.Service', servicePath: 'py/shop/service.py', handle: 'handle', check: 'check', save: 'save', log: 'log', entry: 'py/main.py:main', overloads: 1 },
  { language: 'go', service: 'shop.Service', servicePath: 'go/shop/service.go', handle: 'Handle', check: 'Check', save: 'Save', log: 'Log', entry: 'go/cmd/main.go:main', overloads: 1 },
  { language: 'csharp', service: 'Demo.Shop.Service', servicePath: 'cs/Service.cs', handle: 'Handle', check: 'Check', save: 'Save', log: 'Log', entry: 'cs/Program.cs:Main', overloads: 2 },
  { language: 'kotlin', service: 'demo.shop.Service', servicePath: 'kt/shop/Service.kt', handle: 'handle', check: 'check', save: 'save', log: 'log', entry: 'kt/Main.kt:main', overloads: 2 },
];
