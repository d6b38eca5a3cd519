function light(n){let s=0;for(let i=0;i<n;i++)s+=i%7;return s}
function medium(n){let s=0;for(let i=0;i<n;i++)s+=(i*i)%11;return s}
function heavy(n){let s=0;for(let i=0;i<n;i++)s+=Math.sqrt(i)%13;return s}
function callerA(n){return heavy(n)}
function callerB(n){return heavy(n)}
const end=Date.now()+300;let sink=0;
while(Date.now()<end){sink+=light(1e5);sink+=medium(2e5);sink+=callerA(3e5);sink+=callerB(1e5);[1,2,3].forEach(x=>{sink+=light(1e4*x)})}
console.log(sink>0)
