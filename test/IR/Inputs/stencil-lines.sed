# Keep the lines of stencil ops (and the `} to <...>` ends of applies) and
# normalize what legitimately differs between two printers: SSA names, result
# group syntax (`%0:2 =` vs `%0, %1 =`) and the spacing around `attributes`.
/(^|[ ])stencil\.[a-z_]+|^ *\} to </!d
s/^ +//
s/%[A-Za-z0-9_$.-]+:[0-9]+/%V/g
s/%[A-Za-z0-9_$.-]+(#[0-9]+)?/%V/g
s/^(%V, )+%V = /%V = /
s/\) +attributes /) attributes /
s/\}\{$/} {/
