/**
 * A small hand-made Java project for the code-index and code-tool tests: packages, imports
 * (single, on-demand, static), nested types, overloads, a cycle and an unresolvable call.
 */
export const JAVA_PROJECT: Record<string, string> = {
  'src/main/java/com/acme/app/Main.java': `package com.acme.app;

import com.acme.util.Strings;
import com.acme.model.*;
import static com.acme.util.Checks.notNull;
import java.util.List;
import java.util.ArrayList;

/** Entry point. Does things. */
public class Main {
  private final Service service = new Service();
  private List<User> users = new ArrayList<>();

  public static void main(String[] args) {
    new Main().run(args.length);
  }

  /** Runs the app. Twice. */
  void run(int n) {
    notNull(service);
    service.handle(n);
    service.handle("x");
    String s = Strings.trim("  a ");
    users.add(new User(s));
    for (User u : users) u.greet();
    helper().process();
    unknown.call();
    mystery();
  }

  private Service helper() { return service; }

  static class Inner {
    static void go() { pong(); }
    static void pong() {}
  }

  class Nested {
    class Deeper {
      void m() { run(1); }
    }
  }
}
`,
  'src/main/java/com/acme/app/Service.java': `package com.acme.app;

public class Service implements Handler {
  public void handle(int n) {
    if (n > 0) handle(n - 1);
  }

  public void handle(String s) {
    process();
  }

  @Override
  public void process() {
    a();
  }

  void a() {
    b();
  }

  void b() {
    a();
  }
}
`,
  'src/main/java/com/acme/app/Handler.java': `package com.acme.app;

/** Handles. */
public interface Handler {
  void process();
}
`,
  'src/main/java/com/acme/app/Client.java': `package com.acme.app;

class Client {
  void use(Handler h) {
    h.process();
  }
}
`,
  'src/main/java/com/acme/util/Strings.java': `package com.acme.util;

public final class Strings {
  private Strings() {}

  public static String trim(String s) {
    return s.trim();
  }
}
`,
  'src/main/java/com/acme/util/Checks.java': `package com.acme.util;

public final class Checks {
  public static <T> T notNull(T t) {
    return java.util.Objects.requireNonNull(t);
  }
}
`,
  'src/main/java/com/acme/model/User.java': `package com.acme.model;

/** A user of the app. */
public class User {
  private final String name;

  public User(String name) {
    this.name = name;
  }

  public void greet() {
    System.out.println(name);
  }
}
`,
  'src/main/java/com/other/model/User.java': `package com.other.model;

public record User(String id, int age) {
  public User {
    if (age < 0) throw new IllegalArgumentException();
  }
}
`,
  'build/generated/Ignored.java': 'class Ignored {}\n',
  'pom.xml': '<project/>\n',
};
