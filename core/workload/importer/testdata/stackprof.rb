require 'stackprof'
require 'json'
def light(n) s=0; n.times{|i| s+=i%7}; s end
def medium(n) s=0; n.times{|i| s+=(i*i)%11}; s end
def heavy(n) s=0; n.times{|i| s+=Math.sqrt(i)%13}; s end
def caller_a(n) heavy(n) end
def caller_b(n) heavy(n) end
def work
  t=Time.now+0.6; x=0
  while Time.now<t
    x+=light(2e4.to_i); x+=medium(4e4.to_i); x+=caller_a(6e4.to_i); x+=caller_b(2e4.to_i)
    [1,2].each{|k| x+=light(5000*k)}
  end
  x
end
prof = StackProf.run(mode: :cpu, raw: true, interval: 1000) { work }
File.write('stackprof-cpu.json', JSON.generate(prof))
prof = StackProf.run(mode: :wall, raw: true, interval: 1000) { work; sleep 0.1 }
File.write('stackprof-wall.json', JSON.generate(prof))
prof = StackProf.run(mode: :cpu, interval: 1000) { work }
File.write('stackprof-noraw.json', JSON.generate(prof))
prof = StackProf.run(mode: :object, raw: true, interval: 10) { 20000.times.map{|i| "s#{i}"} }
File.write('stackprof-object.json', JSON.generate(prof))
