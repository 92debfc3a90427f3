print("pass-server")
