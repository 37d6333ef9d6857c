module example.com/vulnerable

go 1.22

require (
	github.com/gorilla/websocket v1.4.0
	golang.org/x/text v0.3.7
)
