module libair/air

go 1.19
