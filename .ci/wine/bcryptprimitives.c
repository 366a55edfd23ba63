/*
 * The Go runtime (1.24 and later) draws its random numbers from
 * ProcessPrng in bcryptprimitives.dll, which Windows has had since 8 but
 * wine 8.0 lacks. This stand-in, built with mingw-w64 and placed in the
 * wine prefix's system32, answers it from BCryptGenRandom, which wine
 * has. It is for running the Windows build's tests under wine in CI only;
 * nothing of it ships.
 */
#include <windows.h>
#include <bcrypt.h>

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len)
{
	while (len > 0) {
		ULONG n = len > 0x40000000 ? 0x40000000 : (ULONG)len;
		if (BCryptGenRandom(NULL, data, n, BCRYPT_USE_SYSTEM_PREFERRED_RNG) != 0)
			return FALSE;
		data += n;
		len -= n;
	}
	return TRUE;
}
