/**
 * Facts about the JDK that every Java file relies on even when the JDK's sources are not in the
 * workspace: the public types of `java.lang` (implicitly imported) and the methods of `Object`.
 * Taken from OpenJDK 17's java.base.
 */

export const JAVA_LANG_TYPES: ReadonlySet<string> = new Set(
  (
    'AbstractMethodError Appendable ArithmeticException ArrayIndexOutOfBoundsException ArrayStoreException AssertionError ' +
    'AutoCloseable Boolean BootstrapMethodError Byte Character CharSequence Class ClassCastException ClassCircularityError ' +
    'ClassFormatError ClassLoader ClassNotFoundException ClassValue CloneNotSupportedException Cloneable Comparable Compiler ' +
    'Deprecated Double Enum EnumConstantNotPresentException Error Exception ExceptionInInitializerError Float ' +
    'FunctionalInterface IllegalAccessError IllegalAccessException IllegalArgumentException IllegalCallerException ' +
    'IllegalMonitorStateException IllegalStateException IllegalThreadStateException IncompatibleClassChangeError ' +
    'IndexOutOfBoundsException InheritableThreadLocal InstantiationError InstantiationException Integer InternalError ' +
    'InterruptedException Iterable LayerInstantiationException LinkageError Long MatchException Math Module ModuleLayer ' +
    'NegativeArraySizeException NoClassDefFoundError NoSuchFieldError NoSuchFieldException NoSuchMethodError ' +
    'NoSuchMethodException NullPointerException Number NumberFormatException Object OutOfMemoryError Override Package ' +
    'Process ProcessBuilder ProcessHandle Readable Record ReflectiveOperationException Runnable Runtime RuntimeException ' +
    'RuntimePermission SafeVarargs ScopedValue SecurityException SecurityManager Short StackOverflowError ' +
    'StackTraceElement StackWalker StrictMath String StringBuffer StringBuilder StringIndexOutOfBoundsException ' +
    'StringTemplate SuppressWarnings System Thread ThreadDeath ThreadGroup ThreadLocal Throwable TypeNotPresentException ' +
    'UnknownError UnsatisfiedLinkError UnsupportedClassVersionError UnsupportedOperationException VerifyError ' +
    'VirtualMachineError Void WrongThreadException'
  ).split(' '),
);

export const OBJECT = 'java.lang.Object';

/** Methods of java.lang.Object: name → [parameter count, return type]. */
export const OBJECT_METHODS: ReadonlyMap<string, ReadonlyArray<readonly [number, string]>> = new Map([
  ['equals', [[1, 'boolean']]],
  ['hashCode', [[0, 'int']]],
  ['toString', [[0, 'java.lang.String']]],
  ['getClass', [[0, 'java.lang.Class']]],
  ['clone', [[0, OBJECT]]],
  ['finalize', [[0, 'void']]],
  ['notify', [[0, 'void']]],
  ['notifyAll', [[0, 'void']]],
  ['wait', [[0, 'void'], [1, 'void'], [2, 'void']]],
]);

/** Object methods no class can override: a call to them is always compiled against Object. */
export const FINAL_OBJECT_METHODS: ReadonlySet<string> = new Set(['getClass', 'notify', 'notifyAll', 'wait']);
