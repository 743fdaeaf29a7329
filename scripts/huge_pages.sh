# Sourced by the scripts that run Herd. Asks glibc to advise transparent huge pages for every large
# block it maps (glibc 2.35 and later; older ones ignore the tunable). Where the kernel grants huge
# pages only on advice (transparent_hugepage=madvise, Debian's default), this halves the time spent
# faulting in the gigabytes a graph of 10^7 agents is built in (docs/performance.md, "Huge pages").
case ":${GLIBC_TUNABLES:-}:" in
  *:glibc.malloc.hugetlb=*) ;;
  *) export GLIBC_TUNABLES="${GLIBC_TUNABLES:+$GLIBC_TUNABLES:}glibc.malloc.hugetlb=1" ;;
esac
