## -*- texinfo -*-
## @deftypefn {} {[@var{R}, @dots{}] =} __gd_arrayfun__ (@var{fh}, @var{A}, @dots{})
## gdArray's arrayfun (internal). An anonymous function of element-wise
## arithmetic on its arguments (@code{+ - * / \ ^} and their dotted forms,
## unary minus, comparisons, abs, sqrt, exp, log, log2, log1p, expm1, sin,
## cos, tanh, floor, ceil, round, fix, sign, max and min of two, mod, rem,
## power), with numbers and the function's captured scalars, runs as one
## pass on the GPU (__gd__ ('fuse'): an accumulator program, at most 64
## steps and 4 saved values), its arguments single, double or logical
## arrays of one size or scalars, in one floating class. Each step is the
## unfused operation's own arithmetic in the class Octave gives that
## step, so the result is the unfused chain's, bit for bit; a parts of
## the expression without an array (@code{2 * s ^ 2}) are computed by
## Octave first. Anything else (another function, integer classes, a
## single constant beside double arrays, options) runs Octave's own
## arrayfun on the gathered arguments, its results made gdArrays.
## @end deftypefn

function varargout = __gd_arrayfun__ (fh, varargin)
  ## the programs made, by the function's text, its captured values and
  ## its arguments' classes (the last 64)
  persistent memo = struct ("key", {}, "c", {});
  nout = max (1, nargout);
  key = key_of (fh, varargin, nout);
  hit = [];
  if (! isempty (key))
    hit = find (strcmp ({memo.key}, key), 1);
  endif
  if (! isempty (hit))
    c = memo(hit).c;
    for k = 2:numel (c.pos)             # (the arrays' sizes: one an input)
      if (! isequal (size (varargin{c.pos(k)}), size (varargin{c.pos(1)})))
        c = translate (fh, varargin, nout);
        break;
      endif
    endfor
  else
    c = translate (fh, varargin, nout);
    if (! isempty (key))
      memo(end+1) = struct ("key", key, "c", c);
      memo(1:end-64) = [];
    endif
  endif
  if (isempty (c.why))
    ins = varargin(c.pos);
    for k = 1:numel (ins)
      if (! isa (ins{k}, "gdArray"))
        ins{k} = gdArray (ins{k});
      endif
    endfor
    [R, cx] = __gd__ ("fuse", c.P, c.K, c.cls, c.logical_out, ins{:});
    if (cx)
      __gd_refuse__ ("arrayfun whose result at some element is complex");
    endif
    varargout{1} = R;
    return;
  endif
  args = varargin;
  dev = [];
  for k = 1:numel (args)
    if (isa (args{k}, "gdArray"))
      if (isempty (dev))
        dev = __gd__ ("device", args{k});
      endif
      args{k} = gather (args{k});
    endif
  endfor
  [varargout{1:nout}] = arrayfun (fh, args{:});
  for k = 1:nout
    if ((isnumeric (varargout{k}) || islogical (varargout{k})) && ! isempty (dev))
      varargout{k} = gdArray (varargout{k}, "Device", dev(1));
    endif
  endfor
endfunction

## what the program depends on, as text: the function's, its captured
## scalars' and scalar arguments' values, every argument's class and form;
## "" where something else is captured or given (not remembered)
function key = key_of (fh, args, nout)
  key = "";
  if (! is_function_handle (fh))
    return;
  endif
  parts = {func2str(fh), sprintf("%d", nout)};
  info = functions (fh);
  vals = {};
  if (isfield (info, "workspace") && ! isempty (info.workspace))
    vals = struct2cell (info.workspace{1})';   # (in the text's order: the
  endif                                        # text names them)
  for k = 1:numel (args)
    if (isa (args{k}, "gdArray"))
      parts{end+1} = ["G" classUnderlying(args{k})];
    elseif (numel (args{k}) == 1)
      vals{end+1} = args{k};
    else
      parts{end+1} = ["H" class(args{k})];
    endif
  endfor
  for k = 1:numel (vals)
    v = vals{k};
    if (! ((isfloat (v) || islogical (v)) && isscalar (v) && isreal (v)))
      return;
    endif
    parts{end+1} = [class(v) ":" num2hex(double (v))];
  endfor
  key = sprintf ("%s|", parts{:});
endfunction

## The program, its constants, its class and its inputs (every array
## argument as a gdArray), or why the function is not fused
function c = translate (fh, args, nout)
  c = struct ("P", [], "K", [], "cls", "", "logical_out", false, "pos", [], "why", "");
  [c.P, c.K, c.cls, c.logical_out, c.pos, c.why] = translate_ (fh, args, nout);
endfunction

function [P, K, cls, logical_out, pos, why] = translate_ (fh, args, nout)
  P = K = pos = [];
  ins = {};
  cls = "";
  logical_out = false;
  why = "";
  if (! is_function_handle (fh) || nout != 1)
    why = "not one function handle of one result";
    return;
  endif
  s = func2str (fh);
  tok = regexp (s, '^@\(([^)]*)\)\s*(.*)$', "tokens", "once");
  if (isempty (tok))                    # a named function: f (x1, ...)
    names = arrayfun (@(k) sprintf ("x%d", k), 1:numel (args), "UniformOutput", false);
    body = sprintf ("%s(%s)", s, strjoin (names, ","));
  else
    names = strtrim (strsplit (tok{1}, ","));
    names(cellfun ("isempty", names)) = [];
    body = tok{2};
  endif
  if (numel (names) != numel (args) || any (strcmp (names, "varargin")))
    why = "its arguments";
    return;
  endif
  ## the arguments: arrays of one size (single, double, logical), scalars
  vars = struct ();
  info = functions (fh);
  if (isfield (info, "workspace") && ! isempty (info.workspace))
    vars = info.workspace{1};
  endif
  arrays = {};
  sz = [];
  for k = 1:numel (args)
    a = args{k};
    c = __gd_class__ (a);
    if (! any (strcmp (c, {"single", "double", "logical"})) || (! isa (a, "gdArray")
        && (issparse (a) || ! isreal (a))) || ndims (a) > 2)
      why = "an argument's class";
      return;
    endif
    if (numel (a) == 1 && ! isa (a, "gdArray"))
      vars.(names{k}) = a;
      continue;
    endif
    if (isempty (sz))
      sz = size (a);
    elseif (! isequal (size (a), sz))
      why = "arguments of different sizes";
      return;
    endif
    arrays{end+1} = names{k};
    ins{end+1} = a;
    pos(end+1) = k;
  endfor
  if (isempty (ins) || numel (ins) > 8)
    why = "no array, or more than 8";
    return;
  endif
  [ast, ok] = parse (body);
  if (! ok)
    why = "an expression it does not compile";
    return;
  endif
  ## each node's class, from Octave itself on one element of each class
  sample = struct ();
  for k = 1:numel (arrays)
    a = ins{k};
    sample.(arrays{k}) = cast (0, __gd_class__ (a));
  endfor
  [~, ok] = evaluate (ast, vars, sample, true);
  if (! ok)
    why = "a name or value it does not know";
    return;
  endif
  classes = cellfun (@(a) __gd_class__ (a), ins, "UniformOutput", false);
  cls = merge (any (strcmp (classes, "single")), "single", "double");
  g = struct ("P", zeros (0, 4), "K", [], "slots", 0, "depth", 0, "ok", true, "cls", cls);
  g.incls = classes;
  [g, root_cls] = emit (ast, g, arrays, vars);
  if (! g.ok || g.slots > 4 || rows (g.P) > 64 || numel (g.K) > 32)
    why = "a chain past the program's size";
    return;
  endif
  logical_out = strcmp (root_cls, "logical");
  if (! logical_out && ! strcmp (root_cls, cls))
    why = "a step in another class";
    return;
  endif
  P = int32 (g.P);
  K = g.K;
endfunction

## ---- the parser: Octave's precedence, | & are not taken -----------------
function [ast, ok] = parse (s)
  [toks, ok] = tokens (s);
  ast = [];
  if (! ok)
    return;
  endif
  p = struct ("t", {toks}, "i", 1, "ok", true);
  [ast, p] = cmp_expr (p);
  ok = p.ok && p.i > numel (p.t);
endfunction

function [toks, ok] = tokens (s)
  toks = {};
  ok = true;
  pat = ['^\s*((?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|[A-Za-z_]\w*|\.\^|\.\*|\./|\.\\|==|~=|!=|<=|>=|[-+*/\\^()<>,])'];
  while (! isempty (strtrim (s)))
    m = regexp (s, pat, "tokens", "once");
    if (isempty (m))
      ok = false;
      return;
    endif
    toks{end+1} = m{1};
    s = s(numel (regexp (s, pat, "match", "once")) + 1:end);
  endwhile
endfunction

function [t, p] = peek (p)
  t = "";
  if (p.i <= numel (p.t))
    t = p.t{p.i};
  endif
endfunction

## the left-associative binary levels, loosest first: comparisons, then
## + -, then * / \ and the dotted forms; below them the unary level
function [a, p] = binary_level (p, level)
  ops = {{"==", "~=", "!=", "<", "<=", ">", ">="}, {"+", "-"}, ...
         {"*", "/", "\\", ".*", "./", ".\\"}};
  [a, p] = ifelse_level (p, level);
  while (p.ok && any (strcmp (peek (p), ops{level})))
    op = p.t{p.i}; p.i += 1;
    [b, p] = ifelse_level (p, level);
    a = struct ("k", "bin", "op", op, "a", {a}, "b", {b});
  endwhile
endfunction

function [a, p] = ifelse_level (p, level)
  if (level < 3)
    [a, p] = binary_level (p, level + 1);
  else
    [a, p] = unary_expr (p);
  endif
endfunction

function [a, p] = cmp_expr (p)
  [a, p] = binary_level (p, 1);
endfunction

function [a, p] = unary_expr (p)
  t = peek (p);
  if (any (strcmp (t, {"-", "+"})))
    p.i += 1;
    [a, p] = unary_expr (p);
    if (strcmp (t, "-"))
      a = struct ("k", "call", "op", "uminus", "a", {{a}}, "b", []);
    endif
    return;
  endif
  [a, p] = power_expr (p);
endfunction

function [a, p] = power_expr (p)
  [a, p] = primary (p);
  while (p.ok && any (strcmp (peek (p), {"^", ".^"})))
    p.i += 1;
    t = peek (p);
    if (any (strcmp (t, {"-", "+"})))   # 2^-x: a sign before the exponent
      p.i += 1;
      [b, p] = primary (p);
      if (strcmp (t, "-"))
        b = struct ("k", "call", "op", "uminus", "a", {{b}}, "b", []);
      endif
    else
      [b, p] = primary (p);
    endif
    a = struct ("k", "bin", "op", ".^", "a", {a}, "b", {b});
  endwhile
endfunction

function [a, p] = primary (p)
  a = [];
  t = peek (p);
  if (isempty (t))
    p.ok = false;
    return;
  endif
  p.i += 1;
  if (strcmp (t, "("))
    [a, p] = cmp_expr (p);
    if (! strcmp (peek (p), ")"))
      p.ok = false;
      return;
    endif
    p.i += 1;
  elseif (any (t(1) == "0123456789.") && ! isnan (str2double (t)))
    a = struct ("k", "num", "op", t, "a", str2double (t), "b", []);
  elseif (isvarname (t))
    if (strcmp (peek (p), "("))           # a call
      p.i += 1;
      args = {};
      while (p.ok)
        [x, p] = cmp_expr (p);
        args{end+1} = x;
        if (strcmp (peek (p), ","))
          p.i += 1;
        elseif (strcmp (peek (p), ")"))
          p.i += 1;
          break;
        else
          p.ok = false;
        endif
      endwhile
      a = struct ("k", "call", "op", t, "a", {args}, "b", []);
    else
      a = struct ("k", "var", "op", t, "a", [], "b", []);
    endif
  else
    p.ok = false;
  endif
endfunction

## ---- evaluation (Octave's own, on scalars) and the program ------------
function [f, code] = function_of (name)
  ## Octave's function, and the program's code for it (-1: none)
  unary = {"uminus", 0; "abs", 1; "sqrt", 2; "floor", 3; "ceil", 4; "round", 5; "fix", 6;
           "sign", 7; "exp", 8; "log", 9; "log2", 10; "log1p", 11; "expm1", 12; "sin", 13;
           "cos", 14; "tanh", 15};
  binary = {"+", 0; "plus", 0; "-", 1; "minus", 1; "*", 2; ".*", 2; "times", 2; "/", 3;
            "./", 3; "rdivide", 3; "max", 4; "min", 5; "mod", 6; "rem", 7; "^", 8; ".^", 8;
            "power", 8; "==", 32; "eq", 32; "~=", 33; "!=", 33; "ne", 33; "<", 34; "lt", 34;
            "<=", 35; "le", 35; ">", 36; "gt", 36; ">=", 37; "ge", 37};
  f = [];
  code = -1;
  k = find (strcmp (unary(:,1), name));
  if (! isempty (k))
    f = str2func (unary{k,1});
    code = 16 + unary{k,2};
    return;
  endif
  k = find (strcmp (binary(:,1), name));
  if (! isempty (k))
    fns = {@plus, @minus, @times, @rdivide, @max, @min, @mod, @rem, @power};
    c = binary{k,2};
    if (c < 16)
      f = fns{c + 1};
    else
      f = {@eq, @ne, @lt, @le, @gt, @ge}{c - 31};
    endif
    code = c;
  endif
endfunction

## node's value (on the samples' classes where classes_only) by Octave's
## own operations; ok false for anything it does not know
function [v, ok] = evaluate (node, vars, sample, classes_only)
  v = [];
  ok = true;
  switch (node.k)
    case "num"
      v = node.a;
    case "var"
      if (isfield (sample, node.op))
        v = sample.(node.op);
      elseif (isfield (vars, node.op) && (isnumeric (vars.(node.op)) || islogical (vars.(node.op)))
              && isscalar (vars.(node.op)) && isreal (vars.(node.op)))
        v = vars.(node.op);
      else
        ok = false;
      endif
    otherwise
      op = node.op;
      kids = kids_of (node);
      if (any (strcmp (op, {"\\", ".\\"})))       # a \ b is b / a
        kids = kids([2 1]);
        op = "./";
      endif
      [f, code] = function_of (op);
      if (code < 0 || numel (kids) != 1 + (code < 16 || code >= 32))
        ok = false;
        return;
      endif
      vals = cell (size (kids));
      for k = 1:numel (kids)
        [vals{k}, ok] = evaluate (kids{k}, vars, sample, classes_only);
        if (! ok)
          return;
        endif
      endfor
      try
        v = f (vals{:});
      catch
        ok = false;
      end_try_catch
  endswitch
  ok = ok && isscalar (v) && (isfloat (v) || islogical (v)) && (isreal (v) || classes_only);
endfunction

## the saved values node's instructions need (Sethi and Ullman's count):
## 0 for an operand the instructions read directly
function n = need (node, arrays)
  n = 0;
  if (! has_array (node, arrays) || strcmp (node.k, "var"))
    return;
  endif
  kids = kids_of (node);
  if (numel (kids) == 1)
    n = need (kids{1}, arrays);
    return;
  endif
  na = need (kids{1}, arrays);
  nb = need (kids{2}, arrays);
  leafy = @(x) ! has_array (x, arrays) || strcmp (x.k, "var");
  if (leafy (kids{1}) || leafy (kids{2}))
    n = max (na, nb);
  elseif (na == nb)
    n = na + 1;
  else
    n = max (na, nb);
  endif
endfunction

## an operation's operands: a binary operator's two, a call's arguments
function kids = kids_of (node)
  if (strcmp (node.k, "bin"))
    kids = {node.a, node.b};
  else
    kids = node.a;
  endif
endfunction

## whether node has an array argument among its leaves
function tf = has_array (node, arrays)
  switch (node.k)
    case "num"
      tf = false;
    case "var"
      tf = any (strcmp (node.op, arrays));
    otherwise
      tf = any (cellfun (@(x) has_array (x, arrays), kids_of (node)));
  endswitch
endfunction

## node as an operand: a leaf (an input, or a constant Octave computes),
## or [] where it needs instructions of its own; its class
function [kind, arg, c, g] = leaf (node, g, arrays, vars)
  kind = 0; arg = 0; c = "";
  if (strcmp (node.k, "var") && any (strcmp (node.op, arrays)))
    kind = 1;
    arg = find (strcmp (arrays, node.op)) - 1;
    c = g.incls{arg + 1};
  elseif (! has_array (node, arrays))
    [v, ok] = evaluate (node, vars, struct (), false);
    if (! ok || ! (isfloat (v) || islogical (v)))
      g.ok = false;
      return;
    endif
    if (strcmp (class (v), "single") && ! strcmp (g.cls, "single"))
      g.ok = false;                     # (a single beside double arrays)
      return;
    endif
    g.K(end+1) = double (v);
    kind = 2;
    arg = numel (g.K) - 1;
    c = class (v);
  endif
endfunction

## the instructions that leave node's value in the accumulator; its class
## by Octave's rules (single where either operand is, logical for a
## comparison, double else)
function [g, c] = emit (node, g, arrays, vars)
  c = g.cls;
  [kind, arg, lc, g] = leaf (node, g, arrays, vars);
  if (! g.ok)
    return;
  endif
  if (kind)
    g.P(end+1,:) = [48, kind, arg, 0];
    c = lc;
    return;
  endif
  op = node.op;
  kids = kids_of (node);
  if (any (strcmp (op, {"\\", ".\\"})))
    kids = kids([2 1]);
    op = "./";
  endif
  [~, code] = function_of (op);
  if (code < 0 || numel (kids) != 1 + (code < 16 || code >= 32))
    g.ok = false;
    return;
  endif
  if (code >= 16 && code < 32)          # unary
    [g, c] = emit (kids{1}, g, arrays, vars);
    g.P(end+1,:) = [code, 0, 0, 0];
    [c, g] = combine ({c}, g);
    return;
  endif
  a = kids{1}; b = kids{2};
  if (any (code == [4 5]) && ! has_array (a, arrays))   # max (c, X): Octave
    [a, b] = deal (b, a);                                # takes c second
  endif
  [kb, argb, cb, g] = leaf (b, g, arrays, vars);
  ka = 0;
  if (g.ok && ! kb)
    [ka, arga, ca, g] = leaf (a, g, arrays, vars);
  endif
  if (! g.ok)
    return;
  endif
  if (kb || ka)                         # acc = a op leaf, or leaf op b
    [g, co] = emit (merge (kb, {a}, {b}){1}, g, arrays, vars);
    if (kb)
      ca = co;
      g.P(end+1,:) = [code, kb, argb, 0];
    else
      cb = co;
      g.P(end+1,:) = [code, ka, arga, 1];
    endif
  else                                  # the needier side first, saved
    first = need (a, arrays) >= need (b, arrays);   # (a stack of saved
    if (first)                                       # values), then the
      [g, ca] = emit (a, g, arrays, vars);           # other, then the op
    else
      [g, cb] = emit (b, g, arrays, vars);
    endif
    slot = g.depth;
    g.depth += 1;
    g.slots = max (g.slots, g.depth);
    g.P(end+1,:) = [49, 0, slot, 0];
    if (first)
      [g, cb] = emit (b, g, arrays, vars);
    else
      [g, ca] = emit (a, g, arrays, vars);
    endif
    g.P(end+1,:) = [code, 3, slot, first];
    g.depth -= 1;
  endif
  if (code >= 32)
    c = "logical";
  else
    [c, g] = combine ({ca, cb}, g);
  endif
endfunction

## Octave's class of an operation on operands of classes cs: single where
## one is, else double (a logical reads as double); a step in another
## class than the program's would round otherwise: not fused (g.ok)
function [c, g] = combine (cs, g)
  c = merge (any (strcmp (cs, "single")), "single", "double");
  if (! strcmp (c, g.cls))
    g.ok = false;
  endif
endfunction
