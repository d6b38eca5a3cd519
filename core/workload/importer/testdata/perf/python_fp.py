import threading, time, hashlib, sys
def busy(sec):
    end = time.time() + sec
    x = b"a"*4096
    while time.time() < end:
        x = hashlib.sha256(x).digest()*128
res = {}
def part(sec, on, off):
    end = time.time() + sec
    while time.time() < end:
        busy(on); time.sleep(off)
    res['worker'] = time.thread_time()
def fib(n): return n if n < 2 else fib(n-1)+fib(n-2)
w0 = time.time()
t = threading.Thread(target=part, args=(2.0, 0.005, 0.015))
t.start()
e = time.time()+2.0
while time.time() < e:
    fib(18)
    time.sleep(0.0005)
t.join()
res['main'] = time.thread_time()
sys.stderr.write("TRUTH wall=%.4f main=%.4f worker=%.4f\n" % (time.time()-w0, res['main'], res['worker']))
