"""Named test doubles: stand-ins that speak a real wire protocol on loopback (127.0.0.1 only).

Each one serves from a daemon thread, bounds its loops and stops by itself when closed (or when its
listening socket's idle limit passes), so a failing test never leaves a hang behind.
"""
