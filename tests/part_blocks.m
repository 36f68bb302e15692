## idx = part_blocks (n, b, p, np): the rows (or columns) of n, in blocks of
## b dealt round np grid rows (columns), that grid row (column) p holds,
## in order: a '2dbc' part's indices in the whole (the tests' own reckoning,
## beside gdCodistributed's)
function idx = part_blocks (n, b, p, np)
  idx = zeros (1, 0);
  for I = p:np:ceil (n / b) - 1
    idx = [idx, I*b+1:min((I+1)*b, n)];
  endfor
endfunction
