module example.com/eppfixture

go 1.26
