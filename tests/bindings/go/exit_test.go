package airtest

import "os"

var osExit = os.Exit
