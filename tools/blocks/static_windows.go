package blocks

// The grammars are C and C++ (the YAML scanner): on Windows, link the
// mingw-w64 C++ runtime and libgcc into the binary, so hostd.exe runs
// without libstdc++-6.dll and libgcc_s_seh-1.dll beside it.

// #cgo LDFLAGS: -static-libgcc -static-libstdc++
import "C"
