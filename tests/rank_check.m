## rank_check - the checks of check_ranks.m and check_ranks_apsp.m, a list
## a rank:
##   rank_check ("begin")       every rank's generators seeded from rank 1's
##                              draw (one stream of data on every rank), the
##                              list emptied
##   rank_check (tf, what)      what recorded where tf is false
##   rank_check ("end", label)  this rank says, through spmd_say, "rank r
##                              <label> ok n all" (all: whether every rank
##                              is) or what differed
function rank_check (a, b)
  persistent bad = {};
  if (ischar (a) && strcmp (a, "begin"))
    seed = gd_spmdBroadcast (1, randi (1e6));
    rand ("state", seed);
    randn ("state", seed);
    bad = {};
  elseif (ischar (a) && strcmp (a, "end"))
    ok = isempty (bad);
    all_ok = gd_spmdCat (ok, 1);
    if (ok)
      spmd_say ("rank %d %s ok %d %d\n", gd_spmdIndex (), b, gd_spmdSize (), all (all_ok));
    else
      spmd_say ("rank %d differs: %s\n", gd_spmdIndex (), strjoin (bad, "; "));
    endif
  elseif (! a)
    bad{end+1} = b;
  endif
endfunction
