function expect_error (id, pattern, fn, varargin)
  ## expect_error (ID, PATTERN, FN, ARGS...): FN (ARGS{:}) must raise an
  ## error with identifier ID whose message matches PATTERN, and must leave
  ## every argument as it was (compared byte for byte).
  before = cellfun (@fingerprint, varargin, "UniformOutput", false);
  try
    fn (varargin{:});
  catch err
    if (! strcmp (err.identifier, id))
      error ("expect_error: wanted id %s, got '%s': %s", id, err.identifier, err.message);
    endif
    if (isempty (regexp (err.message, pattern, "once")))
      error ("expect_error: message '%s' does not match '%s'", err.message, pattern);
    endif
    after = cellfun (@fingerprint, varargin, "UniformOutput", false);
    if (! isequal (before, after))
      error ("expect_error: an argument was modified");
    endif
    printf ("%s: %s\n", err.identifier, err.message);
    return;
  end_try_catch
  error ("expect_error: no error raised (wanted %s)", id);
endfunction

function f = fingerprint (x)
  ## a copy of x's bytes that shares no storage with x
  if (isa (x, "gdArray"))
    f = {class(x), size(x), disp(x)};       # (isnumeric, as gpuArray answers)
  elseif (isnumeric (x) && isreal (x) && ! issparse (x))
    f = {class(x), size(x), typecast(x(:), "uint8")'};
  else
    f = {class(x), size(x), disp(x)};
  endif
endfunction
