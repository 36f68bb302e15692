#!/usr/bin/env bats
# Bad input: each raises a gd: error that names the function, and leaves
# the arguments as they were.

load helpers

err() { octave_error "A = rand(4); B = rand(4, 3);" "$1"; }

@test "no arguments" { err "'gd:input', 'gd_minplus: expected a matrix', @gd_minplus"; }
@test "too many arguments" { err "'gd:input', 'too many input arguments', @gd_minplus, A, A, A"; }
@test "too many outputs" { err "'gd:input', 'too many outputs', @too_many_outputs, A"; }
@test "non-numeric: struct" { err "'gd:input', 'A must be a single, double or integer matrix, not a struct', @gd_minplus, struct('a', 1)"; }
@test "char" { err "'gd:input', 'not char', @gd_minplus, 'abcd'"; }
@test "char as B" { err "'gd:input', 'name/value pairs', @gd_minplus, A, 'ab'"; }
@test "logical" { err "'gd:input', 'not logical', @gd_minplus, true(3)"; }
@test "integer classes: a floating operand beside an integer one" {
    for c in int8 uint8 int16 uint16 int32 uint32 int64 uint64; do
        err "'gd:input', 'A is double and B is $c: integer min-plus takes two operands of the same integer class', @gd_minplus, A, $c(B)"
    done
}
@test "complex" { err "'gd:input', 'A must be real, not complex', @gd_minplus, A + 2i"; }
@test "sparse" { err "'gd:input', 'B must be a full matrix, not sparse', @gd_minplus, A, sparse(B)"; }
@test "N-D" { err "'gd:input', 'A must be a 2-D matrix, not 3-D', @gd_minplus, rand(2, 2, 2)"; }
@test "cell" { err "'gd:input', 'not a cell array', @gd_minplus, num2cell(A)"; }
@test "function handle" { err "'gd:input', 'not a function handle', @gd_minplus, @sin"; }
@test "non-square single argument" { err "'gd:size', 'A must be square, not 4x3', @gd_minplus, B"; }
@test "inner dimensions disagree" { err "'gd:size', 'inner dimensions must agree: A is 4x3, B is 4x3', @gd_minplus, B, B"; }
@test "unknown variant" { err "'gd:variant', 'unknown variant .v9. [(]variants: auto, v0, v1, v2, v3, v4, v5, cpu[)]', @gd_minplus, A, 'Variant', 'v9'"; }
@test "variant not a string" { err "'gd:input', 'value of .Variant. must be', @gd_minplus, A, 'Variant', 3"; }
@test "unknown option" { err "'gd:input', 'unknown option .Speed. [(]options: .Variant., .IndexClass., .Devices., .Distributed.[)]', @gd_minplus, A, B, 'Speed', 'max'"; }
@test "option name not a string" { err "'gd:input', 'argument 5: expected an option name', @gd_minplus, A, B, 'Variant', 'cpu', 3, 'x'"; }
@test "odd option count" { err "'gd:input', 'name/value pairs', @gd_minplus, A, B, 'Variant'"; }
@test "option and variant names are case-insensitive" {
    run octave_run "warning('off', 'gd:nogpu'); R = gd_minplus(rand(3), 'variant', 'CPU'); assert(size(R), [3 3])"
    [ "$status" -eq 0 ]
}
@test "gd_info takes no arguments" { err "'gd:input', 'gd_info: takes no arguments', @gd_info, 1"; }

@test "gd_apsp and gd_path: bad input" {
    err "'gd:input', 'W must be a single, double or integer matrix, not logical', @gd_apsp, true(3)"
    err "'gd:size', 'W must be square', @gd_apsp, int32(B)"
    err "'gd:variant', 'the integer classes run on .fw. [(]the GPU[)] and .cpu.', @gd_apsp, int8(A), 'Variant', 'squaring'"
    err "'gd:size', 'W must be square', @gd_apsp, B"
    err "'gd:input', 'W has a NaN', @gd_apsp, [0 NaN; 1 0]"
    err "'gd:input', 'unknown option .Speed.', @gd_apsp, A, 'Speed', 'max'"
    err "'gd:input', 'I must be a vertex index in 1..2', @gd_path, [0 1; 2 0], 3, 1"
}
