// Reads the vector protocol of ../recipes.test.ts on stdin and checks each case with docs/recipes/verify.go
// (copied next to this file as package webhookverify by the test).
package main

import (
	"bufio"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"vectors/webhookverify"
)

func decode(text string) []byte {
	bytes, err := base64.StdEncoding.DecodeString(text)
	if err != nil {
		panic(err)
	}
	return bytes
}

func main() {
	scanner := bufio.NewScanner(os.Stdin)
	scanner.Buffer(make([]byte, 0, 1<<20), 8<<20)
	for scanner.Scan() {
		fields := strings.Split(scanner.Text(), "\t")
		now, _ := strconv.ParseInt(fields[1], 10, 64)
		tolerance, _ := strconv.ParseInt(fields[2], 10, 64)
		header := ""
		if fields[3] != "-" {
			header = string(decode(fields[3]))
		}
		var secrets []string
		for _, secret := range fields[5:] {
			secrets = append(secrets, string(decode(secret)))
		}
		err := webhookverify.VerifySignature(header, decode(fields[4]), secrets,
			time.Duration(tolerance)*time.Second, time.Unix(now, 0))
		var refusal *webhookverify.VerificationError
		switch {
		case err == nil:
			fmt.Printf("%s\tvalid\n", fields[0])
		case errors.As(err, &refusal):
			fmt.Printf("%s\t%s\n", fields[0], refusal.Reason)
		default:
			panic(err)
		}
	}
	if err := scanner.Err(); err != nil {
		panic(err)
	}
}
