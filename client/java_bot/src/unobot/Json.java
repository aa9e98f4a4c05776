package unobot;

import java.util.List;
import java.util.Map;

/** Just enough JSON for the summary line: objects, arrays, strings, numbers, booleans, null. */
final class Json {
  private Json() {}

  /** One JSON object, written field by field in order. */
  static final class Object {
    private final StringBuilder out = new StringBuilder();

    Object field(String name, java.lang.Object value) {
      out.append(out.length() == 0 ? "{" : ",").append(quoted(name)).append(':');
      write(out, value);
      return this;
    }

    /** A field whose value is JSON already. */
    Object raw(String name, String json) {
      out.append(out.length() == 0 ? "{" : ",").append(quoted(name)).append(':').append(json);
      return this;
    }

    @Override
    public String toString() {
      return out.length() == 0 ? "{}" : out + "}";
    }
  }

  private static void write(StringBuilder out, java.lang.Object value) {
    if (value == null) {
      out.append("null");
    } else if (value instanceof String s) {
      out.append(quoted(s));
    } else if (value instanceof Number || value instanceof Boolean) {
      out.append(value);
    } else if (value instanceof Object o) {
      out.append(o);
    } else if (value instanceof Map<?, ?> map) {
      Object o = new Object();
      map.forEach((k, v) -> o.field(String.valueOf(k), v));
      out.append(o);
    } else if (value instanceof List<?> list) {
      out.append('[');
      for (int i = 0; i < list.size(); i++) {
        if (i > 0) {
          out.append(',');
        }
        write(out, list.get(i));
      }
      out.append(']');
    } else {
      throw new IllegalArgumentException("no JSON for " + value.getClass());
    }
  }

  static String quoted(String text) {
    StringBuilder out = new StringBuilder("\"");
    for (char c : text.toCharArray()) {
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        default -> {
          if (c < 0x20) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    return out.append('"').toString();
  }
}
