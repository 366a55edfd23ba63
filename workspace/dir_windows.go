package workspace

import (
	"errors"
	"fmt"
	"os"
	"unsafe"

	"golang.org/x/sys/windows"
)

// fsyncDir makes a directory's entries durable. Windows has no such call
// for a directory handle (FlushFileBuffers refuses one opened to read);
// NTFS journals the rename itself.
func fsyncDir(*os.File) error { return nil }

// busy turns Windows refusing name in the directory open as pd because
// another program holds it open into ErrBusy: a sharing or lock
// violation, or an access denial (what a rename over a file open without
// FILE_SHARE_DELETE gets) when asking for delete access to name is
// refused for sharing. pd may be nil when only the violations count.
func busy(pd *os.Root, name string, err error) error {
	var errno windows.Errno
	if err == nil || !errors.As(err, &errno) {
		return err
	}
	switch {
	case errno == windows.ERROR_SHARING_VIOLATION, errno == windows.ERROR_LOCK_VIOLATION,
		errno == windows.ERROR_ACCESS_DENIED && pd != nil && heldOpen(pd, name):
		return fmt.Errorf("%w: %s is open in another program that does not share it for replacing or removing (%w)", ErrBusy, name, err)
	}
	return err
}

// heldOpen reports whether another program holds name (in pd) open
// without sharing delete access: opening it for delete is refused as a
// sharing violation.
func heldOpen(pd *os.Root, name string) bool {
	h, err := openForDelete(pd, name)
	if err == nil {
		windows.CloseHandle(h)
	}
	return errors.Is(err, windows.STATUS_SHARING_VIOLATION)
}

// openForDelete opens name, a single element in the directory open as
// pd, relative to that directory's handle (never by a path from the
// volume's root), for delete access, not following a final link.
func openForDelete(pd *os.Root, name string) (windows.Handle, error) {
	dir, err := pd.Open(".")
	if err != nil {
		return 0, err
	}
	defer dir.Close()
	u, err := windows.NewNTUnicodeString(name)
	if err != nil {
		return 0, err
	}
	oa := windows.OBJECT_ATTRIBUTES{RootDirectory: windows.Handle(dir.Fd()), ObjectName: u}
	oa.Length = uint32(unsafe.Sizeof(oa))
	var h windows.Handle
	var iosb windows.IO_STATUS_BLOCK
	err = windows.NtCreateFile(&h, windows.DELETE|windows.SYNCHRONIZE, &oa, &iosb, nil, 0,
		windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE,
		windows.FILE_OPEN, windows.FILE_OPEN_REPARSE_POINT|windows.FILE_SYNCHRONOUS_IO_NONALERT, 0, 0)
	return h, err
}

// removeAt removes name from the directory open as pd. os.Root asks for
// the POSIX delete of Windows 10 and falls back to the older call where
// the system says it lacks it, except when the lack is reported as
// "invalid function", as wine reports it; there the older call is made
// here, on a handle opened through pd as os.Root would.
func removeAt(pd *os.Root, name string) error {
	err := pd.Remove(name)
	if errors.Is(err, windows.ERROR_INVALID_FUNCTION) {
		err = deleteByHandle(pd, name)
	}
	return busy(pd, name, err)
}

func deleteByHandle(pd *os.Root, name string) error {
	h, err := openForDelete(pd, name)
	if err != nil {
		if st, ok := err.(windows.NTStatus); ok {
			err = st.Errno()
		}
		return &os.PathError{Op: "remove", Path: name, Err: err}
	}
	defer windows.CloseHandle(h)
	info := struct{ DeleteFile bool }{true} // FILE_DISPOSITION_INFO
	if err := windows.SetFileInformationByHandle(h, windows.FileDispositionInfo, (*byte)(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		return &os.PathError{Op: "remove", Path: name, Err: err}
	}
	return nil
}
