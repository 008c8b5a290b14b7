/* [expect] and [let] expressions (expr.h): a recursive descent parser
 * over + - * /, unary minus, parentheses and calls. */
#include "metrics/expr.h"

#include <math.h>
#include <string.h>

#include "lbsim/scenario.h"

typedef enum { NUM, NAME, NEG, ADD, SUB, MUL, DIV, CALL } Kind;

typedef enum { LOG2, CEIL, FLOOR, MIN, MAX } Function;

struct _LbExpr {
  Kind kind;
  double number;
  char *balancer, *name; /* NAME: balancer NULL for a plain name */
  Function function;
  LbExpr *left, *right; /* operands; CALL: its arguments, right the second */
};

static const struct {
  const char *name;
  Function function;
  guint args;
} functions[] = {
    {"log2", LOG2, 1}, {"ceil", CEIL, 1}, {"floor", FLOOR, 1}, {"min", MIN, 2}, {"max", MAX, 2}};

void
lb_expr_free(LbExpr *expr)
{
  if (expr == NULL)
    return;
  g_free(expr->balancer);
  g_free(expr->name);
  lb_expr_free(expr->left);
  lb_expr_free(expr->right);
  g_free(expr);
}

typedef struct {
  const char *text, *at;
  GError **error;
  guint depth;
} Parser;

static LbExpr *parse_sum(Parser *p);

static gboolean G_GNUC_PRINTF(2, 3) fail(Parser *p, const char *format, ...)
{
  if (p->error != NULL && *p->error != NULL)
    return FALSE;
  va_list args;
  va_start(args, format);
  g_autofree char *what = g_strdup_vprintf(format, args);
  va_end(args);
  g_set_error(p->error, LB_SCENARIO_ERROR, LB_SCENARIO_ERROR_INVALID, "column %u: %s",
              (guint)(p->at - p->text) + 1, what);
  return FALSE;
}

static void
skip(Parser *p)
{
  while (g_ascii_isspace(*p->at))
    p->at++;
}

static LbExpr *
node(Kind kind, LbExpr *left, LbExpr *right)
{
  LbExpr *e = g_new0(LbExpr, 1);
  e->kind = kind;
  e->left = left;
  e->right = right;
  return e;
}

/* A name: a letter, then letters, digits, '_', ':', '.', and '-' before a
 * letter (mlb-nd; "d-1" is d minus 1). */
static char *
read_name(Parser *p)
{
  const char *start = p->at;
  while (g_ascii_isalnum(*p->at) || *p->at == '_' || *p->at == ':' || *p->at == '.' ||
         (*p->at == '-' && g_ascii_isalpha(p->at[1])))
    p->at++;
  return g_strndup(start, (gsize)(p->at - start));
}

static LbExpr *
parse_atom(Parser *p)
{
  skip(p);
  if (++p->depth > 64) {
    fail(p, "nested more than 64 deep");
    return NULL;
  }
  LbExpr *e = NULL;
  if (*p->at == '(') {
    p->at++;
    e = parse_sum(p);
    skip(p);
    if (e != NULL && *p->at != ')') {
      fail(p, "a ')' is missing");
      g_clear_pointer(&e, lb_expr_free);
    } else if (e != NULL) {
      p->at++;
    }
  } else if (*p->at == '-') {
    p->at++;
    LbExpr *operand = parse_atom(p);
    e = operand != NULL ? node(NEG, operand, NULL) : NULL;
  } else if (g_ascii_isdigit(*p->at) || *p->at == '.') {
    const char *start = p->at;
    while (g_ascii_isdigit(*p->at) || *p->at == '.' ||
           ((*p->at == 'e' || *p->at == 'E') &&
            (g_ascii_isdigit(p->at[1]) || p->at[1] == '-' || p->at[1] == '+')) ||
           ((*p->at == '-' || *p->at == '+') && (p->at[-1] == 'e' || p->at[-1] == 'E')))
      p->at++;
    g_autofree char *text = g_strndup(start, (gsize)(p->at - start));
    double v = 0;
    if (!lb_parse_decimal(text, &v)) {
      p->at = start;
      fail(p, "'%s' is not a number", text);
    } else {
      e = node(NUM, NULL, NULL);
      e->number = v;
    }
  } else if (g_ascii_isalpha(*p->at)) {
    const char *start = p->at;
    g_autofree char *name = read_name(p);
    skip(p);
    if (*p->at == '(') {
      guint f = 0;
      while (f < G_N_ELEMENTS(functions) && strcmp(functions[f].name, name) != 0)
        f++;
      if (f == G_N_ELEMENTS(functions)) {
        p->at = start;
        fail(p, "unknown function '%s' (known: log2, ceil, floor, min, max)", name);
        p->depth--;
        return NULL;
      }
      p->at++;
      LbExpr *a = parse_sum(p), *b = NULL;
      skip(p);
      if (a != NULL && functions[f].args == 2) {
        if (*p->at != ',')
          fail(p, "%s takes two arguments: a ',' is missing", name);
        else {
          p->at++;
          b = parse_sum(p);
          skip(p);
        }
      }
      if (a != NULL && (functions[f].args == 1 || b != NULL) && *p->at != ')')
        fail(p, "%s(...: a ')' is missing", name);
      if (p->error != NULL && *p->error != NULL) {
        lb_expr_free(a);
        lb_expr_free(b);
        p->depth--;
        return NULL;
      }
      p->at++;
      e = node(CALL, a, b);
      e->function = functions[f].function;
    } else {
      e = node(NAME, NULL, NULL);
      const char *dot = strchr(name, '.');
      if (dot != NULL) {
        if (dot == name || dot[1] == '\0') {
          p->at = start;
          fail(p, "'%s' is not BALANCER.METRIC", name);
          lb_expr_free(e);
          p->depth--;
          return NULL;
        }
        e->balancer = g_strndup(name, (gsize)(dot - name));
        e->name = g_strdelimit(g_strdup(dot + 1), "-", '_');
      } else {
        e->name = g_steal_pointer(&name);
      }
    }
  } else if (*p->at == '\0') {
    fail(p, "a number, a name or '(' is missing at the end");
  } else {
    fail(p, "'%c' cannot start a value", *p->at);
  }
  p->depth--;
  return e;
}

static LbExpr *
parse_product(Parser *p)
{
  LbExpr *e = parse_atom(p);
  for (skip(p); e != NULL && (*p->at == '*' || *p->at == '/'); skip(p)) {
    Kind k = *p->at == '*' ? MUL : DIV;
    p->at++;
    LbExpr *r = parse_atom(p);
    if (r == NULL) {
      lb_expr_free(e);
      return NULL;
    }
    e = node(k, e, r);
  }
  return e;
}

static LbExpr *
parse_sum(Parser *p)
{
  LbExpr *e = parse_product(p);
  for (skip(p); e != NULL && (*p->at == '+' || *p->at == '-'); skip(p)) {
    Kind k = *p->at == '+' ? ADD : SUB;
    p->at++;
    LbExpr *r = parse_product(p);
    if (r == NULL) {
      lb_expr_free(e);
      return NULL;
    }
    e = node(k, e, r);
  }
  return e;
}

LbExpr *
lb_expr_parse(const char *text, GError **error)
{
  Parser p = {text, text, error, 0};
  LbExpr *e = parse_sum(&p);
  skip(&p);
  if (e != NULL && *p.at != '\0') {
    fail(&p, "'%s' after a whole expression", p.at);
    g_clear_pointer(&e, lb_expr_free);
  }
  return e;
}

gboolean
lb_expr_eval(const LbExpr *e, LbExprLookup lookup, gpointer data, double *value,
             const char **missing)
{
  double a = 0, b = 0;
  switch (e->kind) {
  case NUM:
    *value = e->number;
    return TRUE;
  case NAME:
    if (!lookup(e->balancer, e->name, value, data)) {
      *missing = e->balancer != NULL ? e->balancer : e->name;
      return FALSE;
    }
    return TRUE;
  default:
    break;
  }
  if (!lb_expr_eval(e->left, lookup, data, &a, missing) ||
      (e->right != NULL && !lb_expr_eval(e->right, lookup, data, &b, missing)))
    return FALSE;
  switch (e->kind) {
  case NEG:
    *value = -a;
    break;
  case ADD:
    *value = a + b;
    break;
  case SUB:
    *value = a - b;
    break;
  case MUL:
    *value = a * b;
    break;
  case DIV:
    *value = a / b;
    break;
  case CALL:
    switch (e->function) {
    case LOG2:
      *value = log2(a);
      break;
    case CEIL:
      *value = ceil(a);
      break;
    case FLOOR:
      *value = floor(a);
      break;
    case MIN:
      *value = MIN(a, b);
      break;
    case MAX:
      *value = MAX(a, b);
      break;
    }
    break;
  default:
    g_assert_not_reached();
  }
  return TRUE;
}

void
lb_expr_names(const LbExpr *e, LbExprVisit visit, gpointer data)
{
  if (e == NULL)
    return;
  if (e->kind == NAME)
    visit(e->balancer, e->name, data);
  lb_expr_names(e->left, visit, data);
  lb_expr_names(e->right, visit, data);
}
