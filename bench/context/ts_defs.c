// bench/context: the definitions of Python files as tree-sitter reads them
// (libtree-sitter from Debian, the Python grammar compiled from its C source
// by parsers.sh at bench time; neither is part of mergelens). Reads file
// paths on stdin, prints "path<TAB>qualified<TAB>kind<TAB>line<TAB>end" per
// function or class and, on stderr, the bytes read and the parse time.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <tree_sitter/api.h>

const TSLanguage* tree_sitter_python(void);

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void walk(TSNode n, const char* src, const char* path, char* scope, const char* scope_kind) {
  const char* type = ts_node_type(n);
  int is_fn = strcmp(type, "function_definition") == 0;
  int is_cls = strcmp(type, "class_definition") == 0;
  char saved[4096];
  strcpy(saved, scope);
  const char* kind = scope_kind;
  if (is_fn || is_cls) {
    TSNode name = ts_node_child_by_field_name(n, "name", 4);
    if (!ts_node_is_null(name)) {
      unsigned a = ts_node_start_byte(name), b = ts_node_end_byte(name);
      char q[4096];
      snprintf(q, sizeof q, "%s%s%.*s", scope, scope[0] ? "." : "", (int)(b - a), src + a);
      const char* k = is_cls ? "class" : (strcmp(scope_kind, "class") == 0 ? "method" : "function");
      printf("%s\t%s\t%s\t%u\t%u\n", path, q, k, ts_node_start_point(n).row + 1,
             ts_node_end_point(n).row + 1);
      strcpy(scope, q);
      kind = is_cls ? "class" : "function";
    }
  }
  // A cursor: ts_node_named_child(n, i) is linear in i.
  TSTreeCursor cur = ts_tree_cursor_new(n);
  if (ts_tree_cursor_goto_first_child(&cur)) {
    do {
      TSNode child = ts_tree_cursor_current_node(&cur);
      if (ts_node_is_named(child)) walk(child, src, path, scope, kind);
    } while (ts_tree_cursor_goto_next_sibling(&cur));
  }
  ts_tree_cursor_delete(&cur);
  strcpy(scope, saved);
}

int main(void) {
  TSParser* parser = ts_parser_new();
  ts_parser_set_language(parser, tree_sitter_python());
  char path[4096];
  double parse = 0;
  size_t bytes = 0;
  while (fgets(path, sizeof path, stdin)) {
    path[strcspn(path, "\n")] = 0;
    FILE* f = fopen(path, "rb");
    if (!f) continue;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char* src = malloc((size_t)n + 1);
    size_t got = fread(src, 1, (size_t)n, f);
    fclose(f);
    src[got] = 0;
    bytes += got;
    double t0 = now();
    TSTree* tree = ts_parser_parse_string(parser, NULL, src, (uint32_t)got);
    char scope[4096] = "";
    walk(ts_tree_root_node(tree), src, path, scope, "");
    parse += now() - t0;
    ts_tree_delete(tree);
    free(src);
  }
  fprintf(stderr, "tree-sitter: %zu bytes in %.3f s\n", bytes, parse);
  ts_parser_delete(parser);
  return 0;
}
