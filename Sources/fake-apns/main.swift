print("fake-apns")
